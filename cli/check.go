package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/optimizer"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "verify a stored run against its data: no machine over capacity at any time, outages and domain spread kept",
		Description: `Checks a stored run independently of the engines that made it: SQL over the
run's placement rows and the vm, vm_type_demand and machine rows of the load the run
pinned sweeps every machine's load in every dimension (cores, memory, SSD, HDD, NIC,
GPUs) through time — a VM occupies its machine from its placement until its end or
eviction — and reports every machine whose load exceeds its capacity (cores: the
run's MAX_OVERSUB when it oversubscribed), and every placement of a VM or on a machine
the data lacks, or of a type the machine's SKU cannot host.

For a run with failures, maintenance or availability sets (replay --failures,
--maintenance, --fault-domains, --update-domains) it also verifies, from the stored
outage, vm_move and placement_domain rows: no VM is placed or healed on a machine
during that machine's outage; no VM stays on a machine that failed hard; every heal
move leaves a machine that failed at that instant and held the VM; and no two VMs of
a tenant in different fault domains share a rack, nor in different update domains a
machine update domain, at any time.

For a run over a Kubernetes cluster (ingest k8s) or any load with placement
constraints, it verifies from vm_constraint and node_set_member: every pod on a node
its node selector / required affinity / pin / persistent volume's zone allows and whose
taints it tolerates, at most max_per_machine pods of a tenant per node (required
hostname anti-affinity), and each DoNotSchedule topology spread kept at the pod's
placement. No VM may be put on a machine the load marks unhealthy or offline (an
observed run is not charged; a plan only for the VMs it moved).

Plans are runs too: whatif drain and whatif migrate store the placement after the plan
(plan_run) with the availability-set domains of their source run, so the same check
verifies a plan, a replay and an observed run. --rules lists each rule the engines keep,
the problems this check reports when a stored placement breaks it, and how the drain
planner encodes it.

Every problem names machines and VMs as the load does (name and id); a machine over
capacity gives its SKU, the SKU's capacity and the load at the peak in the SKU's units
and the first VMs on it then, largest first (JSON: machine, sku, capacity, load, unit,
vms, vm_count beside machine_id, problem, peak, at_s; vm and machine beside vm_id and
machine_id in the other problems).

Exit status 0 when the run is clean, 1 with the offending machines when it is not.
A run whose dataset was re-ingested since is refused (its rows are gone).

Examples:
   placelab check --run 1
   placelab check --run 3 --format json`,
		Flags: []cli.Flag{
			&cli.Int64Flag{Name: "run", Usage: "run `ID` (placelab sql --view run_summary lists them)"},
			&cli.BoolFlag{Name: "rules", Usage: "list the rules, what this check reports for each and its drain encoding, and exit"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if c.Bool("rules") {
				return printRules(c, format)
			}
			if !c.IsSet("run") {
				return fmt.Errorf("check: --run ID is required (or --rules)")
			}
			// Only reads: beside other readers (explain, sql --view, ...).
			db, err := openReadDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			rep, err := analysis.CheckRun(c.Context, db, c.Int64("run"))
			if err != nil {
				return err
			}
			w := c.App.Writer
			if format == "json" {
				if err := printJSON(w, rep); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(w, "run %d: dataset %q load %d, %d placements checked\n", rep.Run, rep.Dataset, rep.LoadID, rep.Placements)
				if len(rep.Violations) == 0 {
					fmt.Fprintln(w, "  ok: no machine over capacity in any dimension at any time")
				}
				if rep.Outages+rep.Moves+rep.Domains > 0 {
					fmt.Fprintf(w, "  availability: %d outage rows, %d heal moves, %d VMs with domains checked\n", rep.Outages, rep.Moves, rep.Domains)
					if len(rep.Avail) == 0 {
						fmt.Fprintln(w, "  ok: no placement during an outage, every failed machine's VMs moved, every tenant's spread kept")
					}
				}
				if rep.Constrained > 0 {
					fmt.Fprintf(w, "  constraints: %d placed VMs with placement constraints checked\n", rep.Constrained)
					if len(rep.Constraints) == 0 {
						fmt.Fprintln(w, "  ok: every VM on an allowed, tolerated node; anti-affinity and topology spread kept")
					}
				}
				for _, v := range rep.Constraints {
					fmt.Fprintf(w, "  VM %s on machine %s: %s (%s) at t = %.0f s\n", named(v.VMName, int64(v.VM)), named(v.MachineName, int64(v.MachineID)), v.Problem, v.Detail, v.AtS)
				}
				for _, v := range rep.Avail {
					other := ""
					if v.OtherVM >= 0 {
						other = " with VM " + named(v.OtherVMName, v.OtherVM)
					}
					if v.Detail != "" {
						other += " (" + v.Detail + ")"
					}
					machine := "no machine"
					if v.MachineID >= 0 {
						machine = "machine " + named(v.MachineName, int64(v.MachineID))
					}
					fmt.Fprintf(w, "  VM %s on %s: %s%s at t = %.0f s\n", named(v.VMName, v.VM), machine, v.Problem, other, v.AtS)
				}
				for _, v := range rep.Violations {
					fmt.Fprintln(w, "  "+capacityLine(v))
				}
			}
			if !rep.OK() {
				return cli.Exit(fmt.Sprintf("run %d breaks capacity on %d (machine, problem) pairs, availability in %d rows and placement constraints in %d", rep.Run, len(rep.Violations), len(rep.Avail), len(rep.Constraints)), 1)
			}
			return nil
		},
	}
}

// printRules prints the rule registry (optimizer.Registry).
func printRules(c *cli.Context, format string) error {
	rules := optimizer.Registry()
	if format == "json" {
		return printJSON(c.App.Writer, rules)
	}
	w := c.App.Writer
	for _, r := range rules {
		checked := strings.Join(r.Check, ", ")
		if checked == "" {
			checked = "none: " + r.Unchecked
		}
		fmt.Fprintf(w, "%s (%s)\n  check: %s\n  drain: %s\n", r.Name, r.Level, checked, r.Drain)
	}
	return nil
}

// named writes a VM's or machine's name with its id ("vm01483 (id 41)"),
// or the id alone when the load has no name for it.
func named(name string, id int64) string {
	if name == "" {
		return fmt.Sprintf("id %d", id)
	}
	return fmt.Sprintf("%s (id %d)", name, id)
}

// capacityLine is one capacity violation in the user's names and units:
// "machine east-m074 (id 73, SKU gen5): cores at 133.3% of capacity, 64 of
// 48 cores, at t = 0 s; VMs on it then: vm1, vm2, vm3 and 2 more".
func capacityLine(v analysis.CapacityViolation) string {
	head := fmt.Sprintf("machine id %d", v.MachineID)
	if v.Machine != "" {
		head = fmt.Sprintf("machine %s (id %d, SKU %s)", v.Machine, v.MachineID, v.SKU)
	}
	var line string
	if v.Unit != "" {
		line = fmt.Sprintf("%s: %s at %.1f%% of capacity, %s of %s %s, at t = %.0f s", head, v.Problem, 100*v.Peak,
			round3(v.Load), round3(v.Capacity), v.Unit, v.AtS)
	} else {
		line = fmt.Sprintf("%s: %s (first at t = %.0f s)", head, v.Problem, v.AtS)
	}
	if len(v.VMs) > 0 {
		vms := strings.Join(v.VMs, ", ")
		if more := v.VMCount - int64(len(v.VMs)); more > 0 {
			vms += fmt.Sprintf(" and %d more", more)
		}
		if v.Unit != "" {
			line += "; VMs on it then, largest first: " + vms
		} else {
			line += "; VMs: " + vms
		}
	}
	return line
}

// round3 writes x rounded to 3 decimals, without trailing zeros (a load
// summed from fractions reads 10, not 10.000000000000002).
func round3(x float64) string {
	return strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64)
}
