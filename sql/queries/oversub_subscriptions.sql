-- oversub_subscriptions: each VM's subscription (its tenant when the
-- dataset has none). $1 = dataset.
SELECT vm_id, coalesce(subscription, tenant, 'vm-' || vm_id)
FROM vm
WHERE dataset = $1;
