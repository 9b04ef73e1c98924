-- oversub_subscriptions: each VM's subscription (its tenant when the
-- dataset has none) and its own P95 CPU utilization (NULL when the trace
-- has none). $1 = dataset.
SELECT vm_id, coalesce(subscription, tenant, 'vm-' || vm_id), cpu_p95max
FROM vm
WHERE dataset = $1;
