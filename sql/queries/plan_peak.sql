-- plan_peak: the instant a dataset's VMs hold the most cores ($1 dataset),
-- over the load it has now: +cores at each start, -cores at each end (ends
-- first at one instant), running sum, the earliest maximum.
WITH v AS (
    SELECT v.start_s, v.end_s, t.cores
    FROM vm v
    JOIN dataset d ON d.name = v.dataset AND d.load_id = v.load_id
    JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
    WHERE v.dataset = $1
), ev AS (
    SELECT start_s AS t, coalesce(cores, 0) AS d FROM v
    UNION ALL
    SELECT end_s AS t, -coalesce(cores, 0) AS d FROM v WHERE end_s IS NOT NULL
), s AS (
    SELECT t, sum(d) OVER (ORDER BY t, d ROWS UNBOUNDED PRECEDING) AS alive FROM ev
)
SELECT t, alive FROM s ORDER BY alive DESC, t LIMIT 1
