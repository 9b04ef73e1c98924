-- rc_labels: each VM's Table 3 bucket of every metric as known at time $2
-- (+infinity: all the trace says), for dataset $1, in vm_id order.
--   lifetime: a VM that ended by $2 has its bucket; one still running at
--     $2, or right-censored (end NULL: seen alive until vm_censor's
--     observed_s, else the dataset's last event), is only known to live
--     longer than its observed age — bucket 4 once that age passes 24 h,
--     else NULL (unknown; never taken as finished);
--   avg_cpu, p95_cpu, workload_class: whole-life summaries, known once the
--     VM ended by $2 (at $2 = +infinity, for every VM that has them);
--   deploy_vms, deploy_cores: the deployment's (tenant's) VMs and cores
--     created before $2 (its size as known then).
-- censored_age_s is the observed age of a VM whose lifetime is not known
-- at $2 (NULL otherwise).
WITH v AS (
    SELECT v.vm_id, v.tenant, v.start_s, v.end_s, v.category, v.cpu_avg, v.cpu_p95max,
           t.cores, w.class, c.observed_s
    FROM vm v
    LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
    LEFT JOIN workload_class w ON w.dataset = v.dataset AND w.vm_id = v.vm_id
    LEFT JOIN vm_censor c ON c.load_id = v.load_id AND c.vm_id = v.vm_id
    WHERE v.dataset = $1
), last AS (
    SELECT max(greatest(start_s, coalesce(end_s, start_s))) AS t FROM v
), dep AS (
    SELECT tenant, count(*) AS vms, sum(cores) AS cores
    FROM v WHERE start_s < $2 GROUP BY tenant
), known AS (
    SELECT v.*, (v.end_s IS NOT NULL AND v.end_s <= $2) AS ended,
           least($2, coalesce(v.end_s, v.observed_s, last.t)) - v.start_s AS age
    FROM v, last
)
SELECT k.vm_id,
       CASE WHEN ended THEN rc_lifetime_bucket(end_s - start_s)
            WHEN age > 86400 THEN 4 END AS lifetime,
       CASE WHEN ended OR isinf($2) THEN rc_util_bucket(cpu_avg) END AS avg_cpu,
       CASE WHEN ended OR isinf($2) THEN rc_util_bucket(cpu_p95max) END AS p95_cpu,
       rc_size_bucket(d.vms) AS deploy_vms,
       rc_size_bucket(d.cores) AS deploy_cores,
       CASE WHEN ended OR isinf($2) THEN rc_class_bucket(category, class) END AS workload_class,
       CASE WHEN NOT ended AND age <= 86400 THEN age END AS censored_age_s
FROM known k LEFT JOIN dep d USING (tenant)
ORDER BY k.vm_id;
