-- 0013: the Kubernetes objects an ingest read, as it read them (issue 51):
-- every Node and every Running or Pending Pod (a manifest's replica as
-- placelab expanded it from the template), as JSON, so that the real
-- kube-scheduler (tools/kubesched) can be given the user's own objects,
-- never placelab's reading of them. kind 'Node' names a machine
-- (machine_id), kind 'Pod' a VM (vm_id).
CREATE TABLE k8s_object (
    dataset    VARCHAR NOT NULL,
    load_id    BIGINT NOT NULL,
    kind       VARCHAR NOT NULL CHECK (kind IN ('Node', 'Pod')),
    name       VARCHAR NOT NULL,
    vm_id      BIGINT,
    machine_id INTEGER,
    object     VARCHAR NOT NULL
);
