-- Resource Central's features (§6.1) of every VM as of its creation, one
-- row per VM, the inputs of placelab predict's models. Nothing a VM's
-- creation could not know enters its row:
--   * history: the share of the entity's earlier VMs in each Table 3 bucket
--     of each metric to date (RC's strongest features). Lifetime, CPU and
--     workload class count only VMs that finished strictly before this VM
--     was created (their metric is known then); deployment sizes count the
--     entity's deployments by their size to date, from arrivals strictly
--     before this VM's creation. hist_*_n is how many VMs (deployments) the
--     shares are over; shares are NULL when it is 0.
--   * the VM: cores, memory, type (a code dense per dataset), priority,
--     category (NULL code when the trace has none), creation hour of day
--     and day of week (trace seconds, day 0 taken to start at midnight);
--   * its deployment (the tenant) so far: VMs and cores that arrived before
--     it (same-time arrivals count in source order);
--   * the entity's VMs created strictly before it.
-- The entity is the subscription; a dataset without subscriptions uses the
-- tenant (deployment) instead, and entity_kind says which.
CREATE OR REPLACE VIEW rc_features AS
WITH ent AS (
    SELECT dataset, bool_or(subscription IS NOT NULL) AS has_sub FROM vm GROUP BY dataset
), base AS (
    SELECT v.dataset, v.vm_id, v.tenant, v.start_s, v.end_s, v.priority, v.category,
           CASE WHEN e.has_sub THEN coalesce(v.subscription, 'tenant:' || v.tenant) ELSE v.tenant END AS entity,
           CASE WHEN e.has_sub THEN 'subscription' ELSE 'tenant' END AS entity_kind,
           t.cores, t.memory_gb,
           dense_rank() OVER (PARTITION BY v.dataset ORDER BY v.vm_type) AS type_code,
           rc_lifetime_bucket(v.end_s - v.start_s) AS lt_b,
           rc_util_bucket(v.cpu_avg) AS avg_b,
           rc_util_bucket(v.cpu_p95max) AS p95_b,
           rc_class_bucket(v.category, w.class) AS cls_b
    FROM vm v
    JOIN ent e USING (dataset)
    LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
    LEFT JOIN workload_class w ON w.dataset = v.dataset AND w.vm_id = v.vm_id
), fin AS (   -- finished VMs, summed per (entity, end time)
    SELECT dataset, entity, end_s AS t,
           count(lt_b) AS ln, count(*) FILTER (lt_b = 1) AS l1, count(*) FILTER (lt_b = 2) AS l2,
           count(*) FILTER (lt_b = 3) AS l3, count(*) FILTER (lt_b = 4) AS l4,
           count(avg_b) AS an, count(*) FILTER (avg_b = 1) AS a1, count(*) FILTER (avg_b = 2) AS a2,
           count(*) FILTER (avg_b = 3) AS a3, count(*) FILTER (avg_b = 4) AS a4,
           count(p95_b) AS pn, count(*) FILTER (p95_b = 1) AS p1, count(*) FILTER (p95_b = 2) AS p2,
           count(*) FILTER (p95_b = 3) AS p3, count(*) FILTER (p95_b = 4) AS p4,
           count(cls_b) AS cn, count(*) FILTER (cls_b = 1) AS c1, count(*) FILTER (cls_b = 2) AS c2
    FROM base WHERE end_s IS NOT NULL
    GROUP BY ALL
), fincum AS (
    SELECT dataset, entity, t,
           sum(ln) OVER w AS ln, sum(l1) OVER w AS l1, sum(l2) OVER w AS l2, sum(l3) OVER w AS l3, sum(l4) OVER w AS l4,
           sum(an) OVER w AS an, sum(a1) OVER w AS a1, sum(a2) OVER w AS a2, sum(a3) OVER w AS a3, sum(a4) OVER w AS a4,
           sum(pn) OVER w AS pn, sum(p1) OVER w AS p1, sum(p2) OVER w AS p2, sum(p3) OVER w AS p3, sum(p4) OVER w AS p4,
           sum(cn) OVER w AS cn, sum(c1) OVER w AS c1, sum(c2) OVER w AS c2
    FROM fin
    WINDOW w AS (PARTITION BY dataset, entity ORDER BY t ROWS UNBOUNDED PRECEDING)
), dseq AS (  -- each VM in its deployment's arrival order
    SELECT dataset, entity, tenant, vm_id, start_s, coalesce(cores, 0) AS cores,
           row_number() OVER d - 1 AS dep_vms,
           coalesce(sum(coalesce(cores, 0)) OVER (d ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS dep_cores
    FROM base
    WINDOW d AS (PARTITION BY dataset, tenant ORDER BY start_s, vm_id)
), dev AS (   -- a deployment moving between size buckets, per (entity, time)
    SELECT dataset, entity, start_s AS t,
           sum(coalesce((rc_size_bucket(dep_vms + 1) = 1)::INT, 0) - coalesce((rc_size_bucket(dep_vms) = 1)::INT, 0)) AS v1,
           sum(coalesce((rc_size_bucket(dep_vms + 1) = 2)::INT, 0) - coalesce((rc_size_bucket(dep_vms) = 2)::INT, 0)) AS v2,
           sum(coalesce((rc_size_bucket(dep_vms + 1) = 3)::INT, 0) - coalesce((rc_size_bucket(dep_vms) = 3)::INT, 0)) AS v3,
           sum(coalesce((rc_size_bucket(dep_vms + 1) = 4)::INT, 0) - coalesce((rc_size_bucket(dep_vms) = 4)::INT, 0)) AS v4,
           sum(coalesce((rc_size_bucket(dep_cores + cores) = 1)::INT, 0) - coalesce((rc_size_bucket(dep_cores) = 1)::INT, 0)) AS k1,
           sum(coalesce((rc_size_bucket(dep_cores + cores) = 2)::INT, 0) - coalesce((rc_size_bucket(dep_cores) = 2)::INT, 0)) AS k2,
           sum(coalesce((rc_size_bucket(dep_cores + cores) = 3)::INT, 0) - coalesce((rc_size_bucket(dep_cores) = 3)::INT, 0)) AS k3,
           sum(coalesce((rc_size_bucket(dep_cores + cores) = 4)::INT, 0) - coalesce((rc_size_bucket(dep_cores) = 4)::INT, 0)) AS k4
    FROM dseq
    GROUP BY ALL
), devcum AS (
    SELECT dataset, entity, t,
           sum(v1) OVER w AS v1, sum(v2) OVER w AS v2, sum(v3) OVER w AS v3, sum(v4) OVER w AS v4,
           sum(k1) OVER w AS k1, sum(k2) OVER w AS k2, sum(k3) OVER w AS k3, sum(k4) OVER w AS k4
    FROM dev
    WINDOW w AS (PARTITION BY dataset, entity ORDER BY t ROWS UNBOUNDED PRECEDING)
), cur AS (
    SELECT b.*, s.dep_vms, s.dep_cores,
           rank() OVER (PARTITION BY b.dataset, b.entity ORDER BY b.start_s) - 1 AS entity_vms
    FROM base b JOIN dseq s USING (dataset, vm_id)
), withfin AS (
    SELECT c.*, h.ln, h.l1, h.l2, h.l3, h.l4, h.an, h.a1, h.a2, h.a3, h.a4,
           h.pn, h.p1, h.p2, h.p3, h.p4, h.cn, h.c1, h.c2
    FROM cur c ASOF LEFT JOIN fincum h
      ON c.dataset = h.dataset AND c.entity = h.entity AND c.start_s > h.t
), withdep AS (
    SELECT f.*, d.v1, d.v2, d.v3, d.v4, d.k1, d.k2, d.k3, d.k4
    FROM withfin f ASOF LEFT JOIN devcum d
      ON f.dataset = d.dataset AND f.entity = d.entity AND f.start_s > d.t
)
SELECT dataset, vm_id, start_s, entity_kind, entity,
       cores, memory_gb, type_code, priority,
       CASE category WHEN 'Delay-insensitive' THEN 1 WHEN 'Interactive' THEN 2 WHEN 'Unknown' THEN 3 END AS category_code,
       floor((((start_s % 86400) + 86400) % 86400) / 3600)::INTEGER AS hour_of_day,
       floor((((start_s % 604800) + 604800) % 604800) / 86400)::INTEGER AS day_of_week,
       dep_vms AS deployment_vms_so_far, dep_cores AS deployment_cores_so_far,
       entity_vms AS entity_vms_to_date,
       coalesce(ln, 0) AS hist_lifetime_n,
       l1 / nullif(ln, 0) AS hist_lifetime_1, l2 / nullif(ln, 0) AS hist_lifetime_2,
       l3 / nullif(ln, 0) AS hist_lifetime_3, l4 / nullif(ln, 0) AS hist_lifetime_4,
       coalesce(an, 0) AS hist_avg_cpu_n,
       a1 / nullif(an, 0) AS hist_avg_cpu_1, a2 / nullif(an, 0) AS hist_avg_cpu_2,
       a3 / nullif(an, 0) AS hist_avg_cpu_3, a4 / nullif(an, 0) AS hist_avg_cpu_4,
       coalesce(pn, 0) AS hist_p95_cpu_n,
       p1 / nullif(pn, 0) AS hist_p95_cpu_1, p2 / nullif(pn, 0) AS hist_p95_cpu_2,
       p3 / nullif(pn, 0) AS hist_p95_cpu_3, p4 / nullif(pn, 0) AS hist_p95_cpu_4,
       coalesce(cn, 0) AS hist_workload_class_n,
       c1 / nullif(cn, 0) AS hist_workload_class_1, c2 / nullif(cn, 0) AS hist_workload_class_2,
       coalesce(v1 + v2 + v3 + v4, 0) AS hist_deploy_vms_n,
       v1 / nullif(v1 + v2 + v3 + v4, 0) AS hist_deploy_vms_1, v2 / nullif(v1 + v2 + v3 + v4, 0) AS hist_deploy_vms_2,
       v3 / nullif(v1 + v2 + v3 + v4, 0) AS hist_deploy_vms_3, v4 / nullif(v1 + v2 + v3 + v4, 0) AS hist_deploy_vms_4,
       coalesce(k1 + k2 + k3 + k4, 0) AS hist_deploy_cores_n,
       k1 / nullif(k1 + k2 + k3 + k4, 0) AS hist_deploy_cores_1, k2 / nullif(k1 + k2 + k3 + k4, 0) AS hist_deploy_cores_2,
       k3 / nullif(k1 + k2 + k3 + k4, 0) AS hist_deploy_cores_3, k4 / nullif(k1 + k2 + k3 + k4, 0) AS hist_deploy_cores_4
FROM withdep
ORDER BY dataset, vm_id;
