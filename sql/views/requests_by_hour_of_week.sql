-- Protean Fig 3: VM requests per hour of the week, averaged over the trace's
-- weeks with their standard deviation (the shaded band). Hour 0 is the
-- trace's first hour (the day of week of t = 0 is not in the traces); weeks
-- in which the trace has no data for an hour do not count, so partial weeks
-- do not drag the mean down.
CREATE OR REPLACE VIEW requests_by_hour_of_week AS
WITH span AS (
    SELECT dataset, max(start_s) AS last FROM vm WHERE start_s >= 0 GROUP BY dataset
), weeks AS (
    SELECT s.dataset, w.week, h.how
    FROM span s,
         range(0, CAST(floor(s.last / 604800) AS BIGINT) + 1) w(week),
         range(0, 168) h(how)
    WHERE w.week * 604800 + h.how * 3600 <= s.last
), counts AS (
    SELECT dataset, CAST(floor(start_s / 604800) AS BIGINT) AS week,
           CAST(floor((start_s % 604800) / 3600) AS BIGINT) AS how, count(*) AS n
    FROM vm WHERE start_s >= 0
    GROUP BY ALL
)
SELECT w.dataset, w.how AS hour_of_week, CAST(w.how // 24 AS INTEGER) AS day, CAST(w.how % 24 AS INTEGER) AS hour,
       count(*) AS weeks, round(avg(coalesce(c.n, 0)), 3) AS mean_requests,
       round(coalesce(stddev_samp(coalesce(c.n, 0)), 0), 3) AS std_requests
FROM weeks w
LEFT JOIN counts c ON c.dataset = w.dataset AND c.week = w.week AND c.how = w.how
GROUP BY w.dataset, w.how
ORDER BY w.dataset, w.how;
