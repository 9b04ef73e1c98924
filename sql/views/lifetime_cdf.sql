-- Protean Fig 5 and Resource Central Fig 5: CDF of VM lifetimes per dataset
-- at fixed points from 5 minutes to 30 days, over completed VMs (start and end
-- known); censored VMs (still alive at the end of the trace) are counted apart
-- and their lower-bound lifetimes are not in the CDF.
CREATE OR REPLACE VIEW lifetime_cdf AS
WITH pts(label, seconds) AS (
    VALUES ('5m', 300), ('10m', 600), ('15m', 900), ('30m', 1800), ('1h', 3600), ('2h', 7200),
           ('6h', 21600), ('12h', 43200), ('1d', 86400), ('2d', 172800), ('7d', 604800),
           ('14d', 1209600), ('30d', 2592000)
), v AS (
    SELECT dataset, end_s - start_s AS life, end_s IS NULL AS censored FROM vm
)
SELECT v.dataset, p.label, p.seconds AS lifetime_s,
       round(100.0 * count(*) FILTER (WHERE NOT v.censored AND v.life <= p.seconds)
             / nullif(count(*) FILTER (WHERE NOT v.censored), 0), 3) AS cdf_pct,
       count(*) FILTER (WHERE NOT v.censored) AS completed_vms,
       count(*) FILTER (WHERE v.censored) AS censored_vms
FROM v, pts p
GROUP BY v.dataset, p.label, p.seconds
ORDER BY v.dataset, p.seconds;
