-- Protean Table 2: distribution of VM types. The paper drops types under 2% in
-- both zones; below_2pct marks them so a report can apply that rule.
CREATE OR REPLACE VIEW vm_type_share AS
SELECT dataset, vm_type, count(*) AS vms,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY dataset), 2) AS pct,
       100.0 * count(*) / sum(count(*)) OVER (PARTITION BY dataset) < 2 AS below_2pct
FROM vm
GROUP BY dataset, vm_type
ORDER BY dataset, vms DESC, vm_type;
