-- cluster_summary: every run over a Kubernetes cluster (ingest k8s) — the
-- observed kube-scheduler placement, replays of its pods, the interval's
-- packings and drain plans (engine offline, policy cluster-packing or
-- drain-plan) — with the pods and nodes it holds at its last placement
-- (nodes_with_pods: nodes holding any pod; a packing or a plan keeps a
-- node's DaemonSet pods only where the node stays) and, where lpbound
-- bounded it, the interval at that instant: nodes_in_use (nodes holding a
-- pod that can move), lb_nodes (no placement of its pods needs fewer),
-- ub_nodes (a placement on that many exists) and drainable_nodes
-- (nodes_in_use − ub_nodes).
CREATE OR REPLACE VIEW cluster_summary AS
WITH k AS (
    SELECT r.run_id, r.dataset, r.engine, r.policy, r.load_id
    FROM run r JOIN dataset d ON d.name = r.dataset AND d.load_id = r.load_id
    WHERE d.format = 'k8s'
),
placed AS (
    SELECT p.run_id, count(*) AS pods_placed, count(DISTINCT p.machine_id) AS nodes_with_pods,
           count(*) FILTER (WHERE p.outcome = 'rejected') AS pods_rejected
    FROM placement p JOIN k USING (run_id)
    GROUP BY p.run_id
),
lp AS (
    SELECT m.run_id,
           max(m.value) FILTER (WHERE m.metric = 'lp_online_machines') AS nodes_in_use,
           max(m.value) FILTER (WHERE m.metric = 'lp_lb_machines') AS lb_nodes,
           max(m.value) FILTER (WHERE m.metric = 'lp_ub_machines') AS ub_nodes
    FROM run_metric m JOIN k USING (run_id)
    WHERE m.metric IN ('lp_online_machines', 'lp_lb_machines', 'lp_ub_machines')
    GROUP BY m.run_id
)
SELECT k.run_id, k.dataset, k.engine, k.policy,
       coalesce(pl.pods_placed, 0) - coalesce(pl.pods_rejected, 0) AS pods_placed,
       coalesce(pl.pods_rejected, 0) AS pods_rejected,
       (SELECT count(*) FROM machine m WHERE m.load_id = k.load_id) AS nodes,
       coalesce(pl.nodes_with_pods, 0) AS nodes_with_pods,
       lp.nodes_in_use::BIGINT AS nodes_in_use, lp.lb_nodes::BIGINT AS lb_nodes, lp.ub_nodes::BIGINT AS ub_nodes,
       (lp.nodes_in_use - lp.ub_nodes)::BIGINT AS drainable_nodes
FROM k
LEFT JOIN placed pl USING (run_id)
LEFT JOIN lp USING (run_id)
ORDER BY k.dataset, k.run_id;
