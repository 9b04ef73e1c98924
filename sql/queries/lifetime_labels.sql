-- lifetime_labels: each VM's lifetime in seconds as an interval known at
-- time $2 (+infinity: all the trace says), for dataset $1, in vm_id order:
-- the labels of placelab predict's lifetime_dist model (XGBoost's
-- survival:aft, label_lower_bound / label_upper_bound).
--   a VM that ended by $2: lower_s = upper_s = end_s - start_s (observed);
--   one still running at $2, or right-censored in the trace (end NULL: seen
--     alive until vm_censor's observed_s, else the dataset's last event):
--     lower_s = its observed age, least($2, end_s or observed_s or the last
--     event) - start_s, and upper_s NULL (+infinity: it lives longer; never
--     dropped, never taken as finished).
-- The same "known at $2" rule as rc_labels. A VM created after $2 gets a
-- negative age; callers take only VMs created before $2.
WITH v AS (
    SELECT v.vm_id, v.start_s, v.end_s, c.observed_s
    FROM vm v
    LEFT JOIN vm_censor c ON c.load_id = v.load_id AND c.vm_id = v.vm_id
    WHERE v.dataset = $1
), last AS (
    SELECT max(greatest(start_s, coalesce(end_s, start_s))) AS t FROM v
)
SELECT v.vm_id,
       CASE WHEN v.end_s IS NOT NULL AND v.end_s <= $2 THEN v.end_s - v.start_s
            ELSE least($2, coalesce(v.end_s, v.observed_s, last.t)) - v.start_s END AS lower_s,
       CASE WHEN v.end_s IS NOT NULL AND v.end_s <= $2 THEN v.end_s - v.start_s END AS upper_s
FROM v, last
ORDER BY v.vm_id;
