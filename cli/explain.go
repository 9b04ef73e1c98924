package main

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	store "placelab/sql"
)

func explainCommand() *cli.Command {
	return &cli.Command{
		Name:  "explain",
		Usage: "why a VM went where it did, why not another machine, or why it failed",
		Description: `Answers from the records a replay stored (tables placement and explain): the
clusters considered and how many each cluster rule removed, the machines in the k
selected clusters and how many each machine rule removed, how many candidates were
left after each preference rule, the best machines with their per-rule scores, and
for a failure the rule that emptied the candidate set. With --machine, compares that
machine with the chosen one rule by rule.

Examples:
   placelab explain --run 1 --vm 4711
   placelab explain --run 1 --vm 4711 --machine 212
   placelab explain --run 1 --vm 4711 --format json`,
		Flags: []cli.Flag{
			&cli.Int64Flag{Name: "run", Required: true, Usage: "run `ID` (placelab sql \"SELECT * FROM run\")"},
			&cli.Int64Flag{Name: "vm", Required: true, Usage: "vm_id `ID`"},
			&cli.Int64Flag{Name: "machine", Value: -1, Usage: "machine_id `ID` to compare with the chosen machine"},
			formatFlag("table", "json"),
		},
		Action: runExplain,
	}
}

type explainRecord struct {
	Run             int64           `json:"run_id"`
	VM              int64           `json:"vm_id"`
	Policy          string          `json:"policy"`
	Dataset         string          `json:"dataset"`
	Time            float64         `json:"t_s"`
	Outcome         string          `json:"outcome"`
	Machine         *int64          `json:"machine_id"`
	Reason          string          `json:"reason,omitempty"`
	LatencyUS       float64         `json:"latency_us"`
	Clusters        int64           `json:"clusters"`
	ClusterRejected map[string]int  `json:"cluster_rejected"`
	Selected        []string        `json:"selected_clusters"`
	Machines        int64           `json:"machines"`
	MachineRejected map[string]int  `json:"machine_rejected"`
	LeftAfter       map[string]int  `json:"left_after"`
	Top             []topMachine    `json:"top"`
	FailedRule      string          `json:"failed_rule,omitempty"`
	Compare         *machineCompare `json:"compare,omitempty"`
	RuleOrder       []string        `json:"rule_order"`
	Extra           map[string]any  `json:"-"`
}

type topMachine struct {
	Machine int64   `json:"machine_id"`
	Name    string  `json:"name"`
	Scores  []int64 `json:"scores"`
}

type machineCompare struct {
	Machine int64  `json:"machine_id"`
	Name    string `json:"name"`
	Cluster string `json:"cluster"`
	Verdict string `json:"verdict"`
}

// preferenceOrder is the machine preference rules' order in the stored
// scores (optimizer.DefaultRules), the global rule last.
var preferenceOrder = []string{"PreferNonEmptyMachines", "BestFit", "RackBalance"}

func runExplain(c *cli.Context) error {
	format := c.String("format")
	if err := checkFormat(format); err != nil {
		return err
	}
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	run, vm := c.Int64("run"), c.Int64("vm")
	var rec explainRecord
	var params string
	var machine sql.NullInt64
	var reason, crej, ctop, cfail, mrej, mtop, mfail sql.NullString
	var clusters, machines sql.NullInt64
	var latency sql.NullFloat64
	err = db.SQL().QueryRowContext(c.Context, store.MustQuery("explain_vm"), run, vm).Scan(
		&rec.Policy, &rec.Dataset, &params, &rec.Time, &machine, &rec.Outcome, &reason, &latency,
		&clusters, &crej, &ctop, &cfail, &machines, &mrej, &mtop, &mfail)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("explain: no VM %d in run %d (check placelab sql \"SELECT run_id, policy, dataset FROM run\")", vm, run)
	}
	if err != nil {
		return err
	}
	rec.Run, rec.VM, rec.Reason, rec.LatencyUS = run, vm, reason.String, latency.Float64
	rec.Clusters, rec.Machines, rec.RuleOrder = clusters.Int64, machines.Int64, preferenceOrder
	if machine.Valid {
		rec.Machine = &machine.Int64
	}
	rec.FailedRule = cfail.String + mfail.String
	if crej.Valid {
		json.Unmarshal([]byte(crej.String), &rec.ClusterRejected)
		var ct struct {
			Selected []string `json:"selected_clusters"`
		}
		json.Unmarshal([]byte(ctop.String), &ct)
		rec.Selected = ct.Selected
	}
	if mrej.Valid {
		var mr struct {
			Rejected  map[string]int `json:"rejected"`
			LeftAfter map[string]int `json:"left_after"`
		}
		json.Unmarshal([]byte(mrej.String), &mr)
		rec.MachineRejected, rec.LeftAfter = mr.Rejected, mr.LeftAfter
		var mt struct {
			Top []topMachine `json:"top"`
		}
		json.Unmarshal([]byte(mtop.String), &mt)
		rec.Top = mt.Top
	}
	if other := c.Int64("machine"); other >= 0 {
		cmp, err := compareMachine(c, db, &rec, other)
		if err != nil {
			return err
		}
		rec.Compare = cmp
	}
	if format == "json" {
		return printJSON(c.App.Writer, rec)
	}
	printExplain(c.App.Writer, &rec)
	return nil
}

// compareMachine says why the VM did not go to machine other, from the
// stored record.
func compareMachine(c *cli.Context, db *store.DB, rec *explainRecord, other int64) (*machineCompare, error) {
	cmp := &machineCompare{Machine: other}
	var rack, sku, health string
	err := db.SQL().QueryRowContext(c.Context, store.MustQuery("machine_by_id"), rec.Dataset, other).Scan(&cmp.Name, &cmp.Cluster, &rack, &sku, &health)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("explain: dataset %q has no machine %d", rec.Dataset, other)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case rec.Machine != nil && *rec.Machine == other:
		cmp.Verdict = "this is the machine the VM went to"
	case health != "healthy":
		cmp.Verdict = fmt.Sprintf("the machine is %s: IsMachineHealthy removes it", health)
	case len(rec.Selected) > 0 && !slices.Contains(rec.Selected, cmp.Cluster):
		cmp.Verdict = fmt.Sprintf("its cluster %s was not among the %d clusters passed to machine selection (%s): "+
			"either a cluster rule removed it or PreferEmptierClusters ranked it lower", cmp.Cluster, len(rec.Selected), strings.Join(rec.Selected, ", "))
	default:
		var mine, chosen *topMachine
		for i := range rec.Top {
			if rec.Top[i].Machine == other {
				mine = &rec.Top[i]
			}
			if rec.Machine != nil && rec.Top[i].Machine == *rec.Machine {
				chosen = &rec.Top[i]
			}
		}
		if chosen == nil && len(rec.Top) > 0 {
			chosen = &rec.Top[0] // the chosen machine tied with the best
		}
		switch {
		case mine == nil:
			cmp.Verdict = fmt.Sprintf("it was not among the %d best machines recorded: a machine rule removed it (%s) "+
				"or a preference rule ranked it below them", len(rec.Top), fmtCounts(rec.MachineRejected))
		case chosen == nil:
			cmp.Verdict = "no machine was chosen"
		default:
			cmp.Verdict = "it tied with the chosen machine on every rule; the seeded random tie-break picked the other"
			for i := range mine.Scores {
				if i < len(chosen.Scores) && mine.Scores[i] != chosen.Scores[i] {
					name := fmt.Sprintf("rule %d", i)
					if i < len(preferenceOrder) {
						name = preferenceOrder[i]
					}
					if mine.Scores[i] > chosen.Scores[i] {
						cmp.Verdict = fmt.Sprintf("it lost on %s: score %d vs %d for the chosen machine (lower is better; earlier rules tied)", name, mine.Scores[i], chosen.Scores[i])
					}
					break
				}
			}
		}
	}
	return cmp, nil
}

func fmtCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s removed %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func printExplain(w io.Writer, r *explainRecord) {
	fmt.Fprintf(w, "run %d (%s on %s), VM %d at t=%.0fs: %s", r.Run, r.Policy, r.Dataset, r.VM, r.Time, r.Outcome)
	if r.Machine != nil {
		fmt.Fprintf(w, " on machine %d", *r.Machine)
	}
	if r.Reason != "" {
		fmt.Fprintf(w, " (%s)", r.Reason)
	}
	fmt.Fprintf(w, ", decided in %.1f µs\n", r.LatencyUS)
	if r.Clusters == 0 && r.Machines == 0 {
		fmt.Fprintln(w, "  no explanation recorded for this VM (baseline policies record none)")
	}
	if r.Clusters > 0 {
		fmt.Fprintf(w, "  clusters: %d candidates; %s; passed on: %s\n", r.Clusters, fmtCounts(r.ClusterRejected), strings.Join(r.Selected, ", "))
	}
	if r.Machines > 0 {
		fmt.Fprintf(w, "  machines: %d in the selected clusters; %s\n", r.Machines, fmtCounts(r.MachineRejected))
		var left []string
		for _, k := range preferenceOrder {
			if n, ok := r.LeftAfter[k]; ok {
				left = append(left, fmt.Sprintf("%s %d", k, n))
			}
		}
		fmt.Fprintf(w, "  candidates left after: %s\n", strings.Join(left, ", "))
		fmt.Fprintf(w, "  best machines (scores: %s; lower is better):\n", strings.Join(preferenceOrder, ", "))
		for _, t := range r.Top {
			fmt.Fprintf(w, "    %8d %-24s %v\n", t.Machine, t.Name, t.Scores)
		}
	}
	if r.FailedRule != "" {
		fmt.Fprintf(w, "  failed: %s emptied the candidate set\n", r.FailedRule)
	}
	if r.Compare != nil {
		fmt.Fprintf(w, "  machine %d (%s, cluster %s): %s\n", r.Compare.Machine, r.Compare.Name, r.Compare.Cluster, r.Compare.Verdict)
	}
}
