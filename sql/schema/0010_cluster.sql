-- 0010: your own fleet (issue 28) — a Kubernetes cluster or a native
-- workload: pod slots as a resource, requests of zero cores, and the
-- constraints that decide where a pod may go.
--
-- pods: pod slots, the resource Kubernetes' NodeResourcesFit counts beside
-- cpu and memory ("Too many pods"). sku.pods is a machine's allocatable pod
-- count (a Kubernetes node's status.allocatable.pods); vm_type.pods is 1 for
-- a pod; vm_type_demand.pods the fraction of the SKU's slots one VM takes.
-- NULL or 0 on either side: the dataset counts no slots (every public
-- trace), so the dimension never binds.
--
-- A pod may request no CPU at all (a BestEffort pod, or one asking only for
-- memory), so vm_type.cores and vm_type_demand.cores may now be 0. The two
-- tables are rebuilt with the relaxed checks (DuckDB cannot drop a CHECK);
-- every row is kept. sku is rebuilt to gain its pods column (DuckDB
-- cannot add a column with a CHECK).

CREATE TABLE sku_v10 (
    dataset    VARCHAR NOT NULL,
    load_id    BIGINT NOT NULL,
    sku        VARCHAR NOT NULL,
    generation INTEGER,
    cores      DOUBLE NOT NULL CHECK (cores > 0),
    memory_gb  DOUBLE NOT NULL CHECK (memory_gb > 0),
    ssd_gb     DOUBLE NOT NULL DEFAULT 0 CHECK (ssd_gb >= 0),
    hdd_gb     DOUBLE NOT NULL DEFAULT 0 CHECK (hdd_gb >= 0),
    nic_gbps   DOUBLE NOT NULL DEFAULT 0 CHECK (nic_gbps >= 0),
    gpus       DOUBLE NOT NULL DEFAULT 0 CHECK (gpus >= 0),
    gpu_model  VARCHAR,
    pods       DOUBLE CHECK (pods >= 0),
    PRIMARY KEY (load_id, sku)
);
INSERT INTO sku_v10 (dataset, load_id, sku, generation, cores, memory_gb, ssd_gb, hdd_gb, nic_gbps, gpus, gpu_model)
SELECT dataset, load_id, sku, generation, cores, memory_gb, ssd_gb, hdd_gb, nic_gbps, gpus, gpu_model FROM sku;
DROP TABLE sku;
ALTER TABLE sku_v10 RENAME TO sku;

CREATE TABLE vm_type_v10 (
    dataset   VARCHAR NOT NULL,
    load_id   BIGINT NOT NULL,
    vm_type   VARCHAR NOT NULL,
    family    VARCHAR,
    cores     DOUBLE CHECK (cores >= 0),
    memory_gb DOUBLE CHECK (memory_gb >= 0),
    ssd_gb    DOUBLE CHECK (ssd_gb >= 0),
    hdd_gb    DOUBLE CHECK (hdd_gb >= 0),
    nic_gbps  DOUBLE CHECK (nic_gbps >= 0),
    gpus      DOUBLE CHECK (gpus >= 0),
    pods      DOUBLE CHECK (pods >= 0),
    PRIMARY KEY (load_id, vm_type)
);
INSERT INTO vm_type_v10 (dataset, load_id, vm_type, family, cores, memory_gb, ssd_gb, hdd_gb, nic_gbps, gpus)
SELECT dataset, load_id, vm_type, family, cores, memory_gb, ssd_gb, hdd_gb, nic_gbps, gpus FROM vm_type;
DROP TABLE vm_type;
ALTER TABLE vm_type_v10 RENAME TO vm_type;

CREATE TABLE vm_type_demand_v10 (
    dataset VARCHAR NOT NULL,
    load_id BIGINT NOT NULL,
    vm_type VARCHAR NOT NULL,
    sku     VARCHAR NOT NULL,
    cores   DOUBLE NOT NULL CHECK (cores >= 0 AND cores <= 1),
    memory  DOUBLE NOT NULL CHECK (memory >= 0 AND memory <= 1),
    ssd     DOUBLE NOT NULL DEFAULT 0 CHECK (ssd >= 0 AND ssd <= 1),
    hdd     DOUBLE NOT NULL DEFAULT 0 CHECK (hdd >= 0 AND hdd <= 1),
    nic     DOUBLE NOT NULL DEFAULT 0 CHECK (nic >= 0 AND nic <= 1),
    gpu     DOUBLE NOT NULL DEFAULT 0 CHECK (gpu >= 0 AND gpu <= 1),
    pods    DOUBLE CHECK (pods >= 0 AND pods <= 1),
    PRIMARY KEY (load_id, vm_type, sku)
);
INSERT INTO vm_type_demand_v10 (dataset, load_id, vm_type, sku, cores, memory, ssd, hdd, nic, gpu)
SELECT dataset, load_id, vm_type, sku, cores, memory, ssd, hdd, nic, gpu FROM vm_type_demand;
DROP TABLE vm_type_demand;
ALTER TABLE vm_type_demand_v10 RENAME TO vm_type_demand;

-- node_set: a set of machines, named by the constraint that defines it.
-- kind 'affinity': the machines a VM's node selector, required node
-- affinity or pin (a DaemonSet or static pod's own node) allows;
-- 'tolerated': the machines none of whose NoSchedule/NoExecute taints the VM
-- leaves untolerated. Equal constraints share one set.
CREATE TABLE node_set (
    dataset     VARCHAR NOT NULL,
    load_id     BIGINT NOT NULL,
    set_id      INTEGER NOT NULL CHECK (set_id >= 0),
    kind        VARCHAR NOT NULL CHECK (kind IN ('affinity', 'tolerated')),
    description VARCHAR NOT NULL,
    PRIMARY KEY (load_id, set_id)
);

CREATE TABLE node_set_member (
    dataset    VARCHAR NOT NULL,
    load_id    BIGINT NOT NULL,
    set_id     INTEGER NOT NULL,
    machine_id INTEGER NOT NULL,
    PRIMARY KEY (load_id, set_id, machine_id)
);

-- vm_constraint: where a VM (pod) may go, for the VMs that have a
-- constraint. affinity_set / tolerated_set: the node_set it must be in (NULL:
-- any machine). pinned: a DaemonSet or static pod that stays on its node
-- (its request is that node's overhead in every packing and drain).
-- max_per_machine: at most this many VMs of its tenant per machine (required
-- pod anti-affinity on the hostname key); max_skew: its tenant's VMs per
-- zone may differ by at most this much at its placement, over the zones
-- holding a machine of its affinity set (DoNotSchedule topology spread on
-- the zone key). unhonoured: the constraints placelab does not model, '; '-
-- separated (preferred affinity, inter-pod affinity beyond the above,
-- volume topology, host ports), listed so nothing is dropped silently.
CREATE TABLE vm_constraint (
    dataset         VARCHAR NOT NULL,
    load_id         BIGINT NOT NULL,
    vm_id           BIGINT NOT NULL,
    affinity_set    INTEGER,
    tolerated_set   INTEGER,
    pinned          BOOLEAN NOT NULL DEFAULT false,
    max_per_machine INTEGER CHECK (max_per_machine > 0),
    max_skew        INTEGER CHECK (max_skew > 0),
    unhonoured      VARCHAR,
    PRIMARY KEY (load_id, vm_id)
);

-- k8s_object: what a Kubernetes ingest read per pod, for the report and
-- explanations: namespace, name, owner, phase, priority class. vm_id is
-- NULL for a pod left out (Succeeded or Failed).
CREATE TABLE k8s_pod (
    dataset        VARCHAR NOT NULL,
    load_id        BIGINT NOT NULL,
    vm_id          BIGINT,
    namespace      VARCHAR NOT NULL,
    name           VARCHAR NOT NULL,
    owner_kind     VARCHAR,
    owner_name     VARCHAR,
    phase          VARCHAR NOT NULL,
    node           VARCHAR,
    priority       INTEGER NOT NULL DEFAULT 0,
    priority_class VARCHAR
);

-- ingest_warning: the named warnings of an ingest (a node whose allocatable
-- exceeds its capacity, a pod bound to a node not in the input, a
-- constraint not honoured, …), kept with the load.
CREATE TABLE ingest_warning (
    dataset VARCHAR NOT NULL,
    load_id BIGINT NOT NULL,
    source  VARCHAR,
    object  VARCHAR,
    code    VARCHAR NOT NULL,
    message VARCHAR NOT NULL
);
