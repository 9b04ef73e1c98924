package catalog

// Help documents the catalog format, as `placelab ingest help-format catalog`
// prints it.
const Help = `A CSV (.csv, .csv.gz) or Parquet (.parquet) file, one row per machine type (a cloud instance
type or your own hardware), read through DuckDB with every column as text. Header names are
case-insensitive; e.g. ../shared/data/catalogs/aws-ec2-us-east-1.csv:
  name,family,vcpus,memory_mib,gpus,arch,on_demand_usd_per_hour
Required columns:
  name            the type's name, unique in the file
  vcpus or cores  CPUs per machine, > 0 (vcpus is read when both are present)
  memory_mib, memory_gib or memory_gb
                  memory per machine, > 0: MiB = 2^20 bytes, GiB = 2^30, GB = 10^9 bytes (placelab's
                  unit); kept in MiB and shown in GB; the first present in that order is read
  a price         per machine per hour, >= 0 (0: hardware already paid for). A price column is
                  named *_usd_per_hour (on_demand_usd_per_hour, spot_usd_per_hour) or
                  price_per_hour. With one, it is read; with several, --price COL picks one (any
                  column not read otherwise); the catalog says which column was read
Optional columns:
  family          default: the name before its first '.' (m5.large -> m5), else the name
  gpus            GPUs per machine, >= 0; default 0
  arch            amd64 or arm64 (x86_64 and aarch64 are read as those, and noted); default amd64
  max_count       how many machines of the type may be bought, whole >= 0; 0 or empty: unlimited
  pods            max pods per node, whole > 0
  capacity_type   on-demand (default), spot or preemptible
  interruptions_per_year
                  times a spot or preemptible machine is taken back a year, >= 0 (on-demand: 0)
Any other column is listed as ignored, never an error.
--types FILTER keeps some types: clauses separated by ';' or spaces, all of which must hold;
  KEY=V1,V2 holds for any of the values. Keys: name (patterns: name=m5.*), family, arch,
  capacity_type, and the numbers gpus, vcpus, memory_gib, which also take <=, >=, < and >:
    --types 'arch=amd64;family=m5,c5,r5'   --types 'vcpus<=64 gpus>0'   --types 'name=m7g.*'
  A filter that keeps no type is an error.
--reserved none|eks|gke: what a Kubernetes node of a type keeps back (allocatable =
  capacity - kube-reserved - eviction threshold); max pods = the pods column, else 110.
  CPU (eks, gke): 6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% above 4
    (eks in whole millicores per tier, as /etc/eks/bootstrap.sh computes them).
  eks memory: 11 MiB x max pods + 255 MiB, and 100 MiB eviction-hard (EKS AL2 bootstrap.sh,
    AL2023 nodeadm; EKS's own max pods, by ENIs, is not in a catalog).
  gke memory: 255 MiB under 1 GiB, else 25% of the first 4 GiB, 20% of the next 4, 10% of the
    next 8, 6% of the next 112, 2% above 128 GiB; and 100 MiB eviction (GKE node allocatable).
  none: allocatable = capacity.
Bad input refuses the whole file with an error naming the file, the line (the header is line 1;
Parquet names the data row only), the data row and the field: a non-number, negative, NaN or
infinite value, vcpus or memory <= 0, an empty name or price, a duplicate name (both rows
named), an unknown arch or capacity_type, a missing column (no CPU column: want vcpus or
cores), a file with a header and no rows, an extension other than .csv, .csv.gz, .parquet.`
