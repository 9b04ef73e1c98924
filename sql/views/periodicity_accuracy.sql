-- Periodicity detection against ground truth (Resource Central §3.6): for
-- datasets whose VMs carry a period label (vm.period_hours, e.g. the
-- labelled Azure V1 periodic series or the synthetic trace), how many
-- labelled VMs were found periodic at their period (one of the significant
-- periods within 10%; found_as_dominant: the strongest one), how many were
-- flagged periodic at all, and how many unlabelled VMs were flagged
-- (false positives when the unlabelled are known aperiodic; precision is
-- left empty for a dataset with no unlabelled VMs).
CREATE OR REPLACE VIEW periodicity_accuracy AS
WITH j AS (
    SELECT w.dataset, v.period_hours AS label, w.periodic, w.period_hours AS dominant,
           coalesce(len(list_filter(w.periods, p -> abs(p - v.period_hours) <= 0.1 * v.period_hours)) > 0, false) AS at_label,
           coalesce(len(w.periods) > 0, false) AS any_period
    FROM workload_class w
    JOIN vm v ON v.dataset = w.dataset AND v.vm_id = w.vm_id
)
SELECT dataset,
       count(*) FILTER (WHERE label IS NOT NULL) AS labelled,
       count(*) FILTER (WHERE label IS NOT NULL AND at_label) AS found_at_period,
       count(*) FILTER (WHERE label IS NOT NULL AND periodic AND abs(dominant - label) <= 0.1 * label) AS found_as_dominant,
       count(*) FILTER (WHERE label IS NOT NULL AND periodic) AS labelled_flagged,
       count(*) FILTER (WHERE label IS NULL) AS unlabelled,
       count(*) FILTER (WHERE label IS NULL AND periodic) AS unlabelled_flagged,
       round(100.0 * count(*) FILTER (WHERE label IS NOT NULL AND at_label)
             / nullif(count(*) FILTER (WHERE label IS NOT NULL), 0), 2) AS recall_pct,
       CASE WHEN count(*) FILTER (WHERE label IS NULL) > 0 THEN
       round(100.0 * count(*) FILTER (WHERE label IS NOT NULL AND at_label)
             / nullif(count(*) FILTER (WHERE at_label OR (label IS NULL AND periodic)), 0), 2) END AS precision_pct
FROM j
GROUP BY dataset
ORDER BY dataset;
