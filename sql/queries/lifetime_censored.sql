-- lifetime_censored: when each right-censored VM (end_s NULL) of dataset $1
-- was last seen alive, as schema 0007 defines it: its vm_censor row's
-- observed_s, else the dataset's last event (the latest start or end of
-- any of its VMs). Its lifetime is known to exceed observed_s - start_s.
WITH last AS (
    SELECT max(greatest(start_s, coalesce(end_s, start_s))) AS t
    FROM vm
    WHERE dataset = $1
)
SELECT v.vm_id, coalesce(c.observed_s, last.t) AS observed_s
FROM vm v
CROSS JOIN last
LEFT JOIN vm_censor c ON c.load_id = v.load_id AND c.vm_id = v.vm_id
WHERE v.dataset = $1 AND v.end_s IS NULL;
