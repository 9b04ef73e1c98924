-- Periodicity detection against ground truth: for datasets whose VMs carry a
-- period label (vm.period_hours, e.g. the labelled Azure V1 periodic series
-- or the synthetic trace), how many labelled VMs were found periodic at their
-- period (within 10%), and how many unlabelled VMs were flagged periodic.
CREATE OR REPLACE VIEW periodicity_accuracy AS
SELECT w.dataset,
       count(*) FILTER (WHERE v.period_hours IS NOT NULL) AS labelled,
       count(*) FILTER (WHERE v.period_hours IS NOT NULL AND w.periodic
                        AND abs(w.period_hours - v.period_hours) <= 0.1 * v.period_hours) AS found_at_period,
       count(*) FILTER (WHERE v.period_hours IS NOT NULL AND w.periodic) AS labelled_flagged,
       count(*) FILTER (WHERE v.period_hours IS NULL) AS unlabelled,
       count(*) FILTER (WHERE v.period_hours IS NULL AND w.periodic) AS unlabelled_flagged,
       round(100.0 * count(*) FILTER (WHERE v.period_hours IS NOT NULL AND w.periodic
                        AND abs(w.period_hours - v.period_hours) <= 0.1 * v.period_hours)
             / nullif(count(*) FILTER (WHERE v.period_hours IS NOT NULL), 0), 2) AS recall_pct
FROM workload_class w
JOIN vm v ON v.dataset = w.dataset AND v.vm_id = w.vm_id
GROUP BY w.dataset
ORDER BY w.dataset;
