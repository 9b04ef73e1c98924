-- König et al. (VLDB'22) Fig 9: violations per placement policy over tenant
-- density, from stored placelab violation runs (means over the tenant
-- sequences), with each policy's violations over PrV-WorstFit's. The paper:
-- the best policy not using probability-of-violation estimates had 2.1–2.6×
-- PrV-WorstFit's violations. dataset is the curves' dataset (NULL for
-- synthetic curves), so a report of one dataset shows its own runs only.
CREATE OR REPLACE VIEW violation_results AS
SELECT r.run_id, r.dataset, coalesce(r.dataset, 'synthetic curves') AS curves, r.policy,
       CAST(json_extract(r.params, '$.density') AS DOUBLE) AS density,
       CAST(json_extract(r.params, '$.seeds') AS INTEGER) AS seeds,
       max(m.value) FILTER (WHERE m.metric = 'violations') AS violations,
       max(m.value) FILTER (WHERE m.metric = 'failovers') AS failovers,
       max(m.value) FILTER (WHERE m.metric = 'ratio_to_prv_worstfit') AS ratio_to_prv_worstfit,
       max(m.value) FILTER (WHERE m.metric = 'ms_per_placement') AS ms_per_placement
FROM run r JOIN run_metric m USING (run_id)
WHERE r.engine = 'violation'
GROUP BY r.run_id, r.dataset, r.policy, r.params
ORDER BY curves, density, r.policy, r.run_id;
