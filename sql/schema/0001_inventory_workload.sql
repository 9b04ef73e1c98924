-- 0001: inventory and workload tables.
--
-- Every dataset-scoped table leads with (dataset, load_id). `dataset` is the
-- user-facing name; `load_id` numbers the ingest that wrote the rows. Keys
-- include load_id so that re-ingesting a dataset inserts the new rows and
-- deletes the old ones inside one transaction without tripping DuckDB 1.1's
-- over-eager unique-key check (a key deleted and re-inserted in the same
-- transaction is reported as a duplicate).
--
-- Units: cores (vCPUs), memory/ssd/hdd in GB, nic in Gbit/s, gpus in devices,
-- times in seconds from the start of the trace (negative: alive before
-- collection began; NULL end: still alive when collection ended), CPU
-- utilization in percent (0..100).

CREATE SEQUENCE load_seq START 1;

CREATE TABLE dataset (
    name          VARCHAR PRIMARY KEY,
    load_id       BIGINT NOT NULL,
    format        VARCHAR NOT NULL,
    source        VARCHAR NOT NULL,
    loaded_at     TIMESTAMP NOT NULL,
    rows_read     BIGINT NOT NULL CHECK (rows_read >= 0),
    rows_loaded   BIGINT NOT NULL CHECK (rows_loaded >= 0),
    rows_rejected BIGINT NOT NULL CHECK (rows_rejected >= 0),
    params        VARCHAR  -- JSON: loader options, inventory spec, seed
);

-- Hardware generation / SKU. Clusters are homogeneous in SKU.
CREATE TABLE sku (
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
    PRIMARY KEY (load_id, sku)
);

-- Servers: zone > datacenter > cluster > rack (fault domain) > machine.
CREATE TABLE machine (
    dataset       VARCHAR NOT NULL,
    load_id       BIGINT NOT NULL,
    machine_id    INTEGER NOT NULL CHECK (machine_id >= 0),
    name          VARCHAR NOT NULL,
    zone          VARCHAR NOT NULL,
    datacenter    VARCHAR NOT NULL,
    cluster       VARCHAR NOT NULL,
    rack          VARCHAR NOT NULL,
    update_domain SMALLINT NOT NULL DEFAULT 0 CHECK (update_domain >= 0),
    sku           VARCHAR NOT NULL,
    health        VARCHAR NOT NULL DEFAULT 'healthy'
                  CHECK (health IN ('healthy', 'unhealthy', 'offline')),
    PRIMARY KEY (load_id, machine_id)
);

-- Nominal VM type sizes. NULL sizes: the source gives only per-SKU
-- fractions (the Azure packing trace).
CREATE TABLE vm_type (
    dataset   VARCHAR NOT NULL,
    load_id   BIGINT NOT NULL,
    vm_type   VARCHAR NOT NULL,
    family    VARCHAR,
    cores     DOUBLE CHECK (cores > 0),
    memory_gb DOUBLE CHECK (memory_gb >= 0),
    ssd_gb    DOUBLE CHECK (ssd_gb >= 0),
    hdd_gb    DOUBLE CHECK (hdd_gb >= 0),
    nic_gbps  DOUBLE CHECK (nic_gbps >= 0),
    gpus      DOUBLE CHECK (gpus >= 0),
    PRIMARY KEY (load_id, vm_type)
);

-- Demand of a VM type on one SKU, as a fraction of one machine of that SKU
-- (the Azure packing trace 2020's vmType table). A VM type runs only on the
-- SKUs listed here.
CREATE TABLE vm_type_demand (
    dataset VARCHAR NOT NULL,
    load_id BIGINT NOT NULL,
    vm_type VARCHAR NOT NULL,
    sku     VARCHAR NOT NULL,
    cores   DOUBLE NOT NULL CHECK (cores > 0 AND cores <= 1),
    memory  DOUBLE NOT NULL CHECK (memory >= 0 AND memory <= 1),
    ssd     DOUBLE NOT NULL DEFAULT 0 CHECK (ssd >= 0 AND ssd <= 1),
    hdd     DOUBLE NOT NULL DEFAULT 0 CHECK (hdd >= 0 AND hdd <= 1),
    nic     DOUBLE NOT NULL DEFAULT 0 CHECK (nic >= 0 AND nic <= 1),
    gpu     DOUBLE NOT NULL DEFAULT 0 CHECK (gpu >= 0 AND gpu <= 1),
    PRIMARY KEY (load_id, vm_type, sku)
);

-- One row per VM. vm_id is dense per load (0..n-1 in source order); name is
-- the source's own id. tenant is the deployment / service; VMs of a tenant
-- arriving at the same time form one service request.
CREATE TABLE vm (
    dataset      VARCHAR NOT NULL,
    load_id      BIGINT NOT NULL,
    vm_id        BIGINT NOT NULL CHECK (vm_id >= 0),
    name         VARCHAR NOT NULL,
    tenant       VARCHAR NOT NULL,
    subscription VARCHAR,
    vm_type      VARCHAR NOT NULL,
    priority     SMALLINT NOT NULL DEFAULT 0 CHECK (priority IN (0, 1)), -- 0 high, 1 low (evictable)
    start_s      DOUBLE NOT NULL,
    end_s        DOUBLE CHECK (end_s IS NULL OR end_s >= start_s),
    category     VARCHAR,       -- e.g. Interactive, Delay-insensitive, Unknown
    cpu_avg      DOUBLE CHECK (cpu_avg >= 0),  -- whole-life summaries, percent
    cpu_max      DOUBLE CHECK (cpu_max >= 0),
    cpu_p95max   DOUBLE CHECK (cpu_p95max >= 0),
    period_hours DOUBLE CHECK (period_hours > 0), -- ground-truth period label, when known
    PRIMARY KEY (load_id, vm_id)
);

-- Per-VM CPU utilization series (5-minute readings in the Azure traces).
CREATE TABLE cpu_reading (
    dataset VARCHAR NOT NULL,
    load_id BIGINT NOT NULL,
    vm_id   BIGINT NOT NULL,
    ts_s    DOUBLE NOT NULL,
    cpu_min DOUBLE CHECK (cpu_min >= 0),
    cpu_max DOUBLE CHECK (cpu_max >= 0),
    cpu_avg DOUBLE NOT NULL CHECK (cpu_avg >= 0),
    PRIMARY KEY (load_id, vm_id, ts_s)
);

-- Per-tenant resource demand over time since the tenant's creation, in
-- absolute units (cores, GB).
CREATE TABLE demand_curve (
    dataset   VARCHAR NOT NULL,
    load_id   BIGINT NOT NULL,
    tenant    VARCHAR NOT NULL,
    t_s       DOUBLE NOT NULL CHECK (t_s >= 0),
    cpu_cores DOUBLE CHECK (cpu_cores >= 0),
    memory_gb DOUBLE CHECK (memory_gb >= 0),
    disk_gb   DOUBLE CHECK (disk_gb >= 0),
    PRIMARY KEY (load_id, tenant, t_s)
);

-- Paragon utility matrices: one cell per (matrix, app, column). matrix is
-- 'platform' (columns are server configurations), 'tolerated' or 'caused'
-- (columns are sources of interference). score is normalized per app, higher
-- is better, 1 = the app's best; raw keeps the measured value (e.g. median
-- run time in seconds).
CREATE TABLE app_score (
    dataset VARCHAR NOT NULL,
    load_id BIGINT NOT NULL,
    matrix  VARCHAR NOT NULL CHECK (matrix IN ('platform', 'tolerated', 'caused')),
    app     VARCHAR NOT NULL,
    col     VARCHAR NOT NULL,
    score   DOUBLE NOT NULL CHECK (score >= 0),
    raw     DOUBLE,
    samples INTEGER CHECK (samples > 0),
    PRIMARY KEY (load_id, matrix, app, col)
);

-- Bin packing instances (BPPLIB one-dimensional and .vbp vector format).
-- capacity and sizes are lists of length dims.
CREATE TABLE bpp_instance (
    dataset  VARCHAR NOT NULL,
    load_id  BIGINT NOT NULL,
    instance VARCHAR NOT NULL,
    dims     INTEGER NOT NULL CHECK (dims > 0),
    capacity DOUBLE[] NOT NULL,
    items    INTEGER NOT NULL CHECK (items > 0),
    opt      INTEGER CHECK (opt > 0),  -- proven optimum (bins), when known
    PRIMARY KEY (load_id, instance)
);

CREATE TABLE bpp_item (
    dataset  VARCHAR NOT NULL,
    load_id  BIGINT NOT NULL,
    instance VARCHAR NOT NULL,
    kind     INTEGER NOT NULL CHECK (kind >= 0),
    sizes    DOUBLE[] NOT NULL,
    count    INTEGER NOT NULL CHECK (count > 0),
    PRIMARY KEY (load_id, instance, kind)
);
