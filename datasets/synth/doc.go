// Package synth generates a synthetic Azure-like zone and VM trace,
// calibrated to published figures and fully determined by a seed, and
// writes inventories for real traces that carry none.
//
//	Config ──Generate──▶ Trace{Zone, VMs, Series} ──Write──▶ sku, machine, vm_type, vm, cpu_reading
//	  (pure Go, no DuckDB; one PCG stream per part)            + vm_type_demand (derive_type_demand)
//	spec ──WriteInventory──▶ sku, machine            (the --inventory flag of trace loaders)
//
// What is calibrated to what (sources in /work/shared/seeds):
//
//	Inventory
//	  generations gen3–gen6, cores 10/24/40/48,   Protean Table 1 (7,295 / 34,208 / 18,016 / 2,064 machines),
//	  machine shares                              largest-remainder rounding to Machines
//	  clusters ≤ 1,000 homogeneous machines       Protean §2.1 ("around a thousand", "homogeneous")
//	  racks ≤ 40 (fault domains), 20 UDs          slides, "Availability Domains" (FD = rack; 40 is ours)
//	  memory/SSD/HDD/NIC per SKU                  ours: gen3 has no SSD (no D/G), only gen5+ holds G4/G5
//	VM types
//	  A0–A11, D1–D4, D11–D14, G1–G5 cores, RAM    slides, "Virtual Machine Types"; disks: A HDD, D/G SSD
//	  type mix: top two 23.5% + 21.3%, long tail  shape of Protean Table 2
//	  cores mix 17.1/37.4/32.0/8.9/4.3/0.3%       Protean Table 3 Zone1 (exact in the type shares)
//	Requests
//	  94% single-VM, 99% ≤ 5, a few of hundreds   Protean §2.2 (Pareto tail, α = 1.2, ≤ 1,000 VMs, ≤ 1,024 cores)
//	  VMs of a request share type and start       Protean §2.1 (service request = tenant)
//	  > 80% zero reuse distance                   Protean Fig 2 (runs of repeated requests, p = 0.8)
//	  diurnal, lower on weekends, bursts          Protean Figs 3–4, RC Fig 7
//	Subscriptions
//	  Zipf rates; a primary type, priority,       RC §3 (96% of subscriptions one type; CoV < 1 for
//	  lifetime class and scale, CPU level         sizes, lifetimes, utilization; 76% one class)
//	  low priority ≈ 15% of VMs                   Config.LowPriority (slides: multi-priority)
//	Lifetimes
//	  minutes to hours; > 90% under a day,        RC Fig 5, Protean §2.2 / Fig 5
//	  knee at 1 day, tail of weeks to months
//	  initial population alive at t = 0           the Azure packing trace: negative starts; here a
//	                                              length-biased snapshot sized to Load × zone cores
//	CPU
//	  60% average < 20%, 40% P95 max < 50%        RC Fig 1 (CDFs read at a few points)
//	  Interactive (24 h periodic, ≥ 3 days),      RC §3.6 / Fig 6 (~28% of core hours interactive)
//	  Delay-insensitive, Unknown (< 3 days)
//	  5-minute series for SeriesVMs long-lived    Azure V1 CPU readings; period_hours = 24 labels
//	  VMs, a share periodic                       the periodic ones
//
// The trace is stationary where it can be: the long lifetime class's median
// is solved (Little's law) so that arrivals replace departures and the
// allocated cores stay near Load × zone cores for the whole trace. When the
// VMs per machine are too few or too many for that, the median is clamped
// (Trace.Stationary is false) and the load drifts; when VMs cannot even
// cover Load at t = 0, every VM is in the initial population.
//
// Determinism: each part (inventory, subscriptions, initial population,
// requests, arrival times, CPU summaries, series choice, each series) draws
// from its own math/rand/v2 PCG stream keyed by (Seed, part), so the same
// Config gives identical rows and, e.g., changing SeriesVMs leaves every
// VM unchanged.
//
// The calibration test (calibration_test.go) measures every figure above
// and fails when one drifts outside its named tolerance.
package synth
