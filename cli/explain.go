package main

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis/snapshot"
	"placelab/analysis/whatif"
	"placelab/datasets"
	"placelab/internal/kunits"
	"placelab/optimizer"
	store "placelab/sql"
)

func explainCommand() *cli.Command {
	return &cli.Command{
		Name:  "explain",
		Usage: "why a VM went where it did, why not another machine, or why it failed",
		Description: `Answers from the records a replay stored (tables placement and explain): the
clusters considered and how many each cluster rule removed, the machines in the k
selected clusters and how many each machine rule removed, how many candidates were
left after each preference rule, the best machines with their scores named by rule
(in the rule order the run recorded), how the machine was picked (the best by the
preference rules, conflict avoidance, the safety score, eviction, or a baseline's
policy), and for a failure the rule that emptied the candidate set and, for a
resource rule, which dimension was short. With --machine, compares that machine
with the chosen one rule by rule.

A request of several VMs is placed all or none (gang allocation). For a VM of such a
request that was rejected, explain tells the request as it happened (JSON: "gang"):
how many VMs it had, which VM found no machine and why (the rule that emptied its
candidate set, the short dimension), which VMs were placed and rolled back (with the
machine each held) and which were never tried; this VM's own record, if any, is its
selection before the rollback. This is recorded with or without --no-explain.

Without --vm, --machine NODE (a machine's name, or its machine_id) asks why that node
cannot be drained on the run at --at (default: its last placement) — the question of a
Kubernetes user whose consolidation left a node behind: every pod of the node is moved
in turn onto the other nodes as they are; the first pod that has nowhere to go is named,
with how many other nodes each reason excludes (its node affinity or selector, an
untolerated taint, cordoned or not Ready, anti-affinity, topology spread, short of a
resource) and the nearest node with its shortfall. A drainable node gets its moves.

Examples:
   placelab explain --run 1 --vm 4711
   placelab explain --run 1 --vm 4711 --machine 212
   placelab explain --run 1 --vm 4711 --format json
   placelab explain --run 1 --machine ip-10-0-3-17`,
		Flags: []cli.Flag{
			&cli.Int64Flag{Name: "run", Required: true, Usage: "run `ID` (placelab sql \"SELECT * FROM run\")"},
			&cli.StringFlag{Name: "vm", Usage: "the VM or pod: its `NAME` (namespace/name for a pod) or vm_id"},
			&cli.StringFlag{Name: "machine", Usage: "with --vm: a machine (`NAME` or machine_id) to compare with the chosen machine; without: a node (name or id) to explain why it cannot be drained"},
			&cli.StringFlag{Name: "at", Usage: "with --machine and no --vm: snapshot `TIME` (default: the run's last placement)"},
			formatFlag("table", "json"),
		},
		Action: runExplain,
	}
}

type explainRecord struct {
	Run             int64                  `json:"run_id"`
	VM              int64                  `json:"vm_id"`
	Policy          string                 `json:"policy"`
	Dataset         string                 `json:"dataset"`
	Time            float64                `json:"t_s"`
	Stamp           string                 `json:"time,omitempty"` // t_s as RFC 3339, for a dataset with a time origin
	Engine          string                 `json:"engine"`
	Name            string                 `json:"vm"`
	Outcome         string                 `json:"outcome"`
	Machine         *int64                 `json:"machine_id"`
	MachineName     string                 `json:"machine,omitempty"`
	Reason          string                 `json:"reason,omitempty"`
	LatencyUS       float64                `json:"latency_us"`
	Clusters        int64                  `json:"clusters"`
	ClusterRejected map[string]int         `json:"cluster_rejected"`
	Selected        []string               `json:"selected_clusters"`
	Machines        int64                  `json:"machines"`
	MachineRejected map[string]int         `json:"machine_rejected"`
	LeftAfter       map[string]int         `json:"left_after"`
	Short           map[string]int         `json:"short,omitempty"`
	Evicted         int                    `json:"evicted"`
	Pick            string                 `json:"pick,omitempty"`
	RuleOrder       []string               `json:"rule_order"`
	Top             []optimizer.TopMachine `json:"top"`
	FailedRule      string                 `json:"failed_rule,omitempty"`
	Compare         *machineCompare        `json:"compare,omitempty"`
	// Gang: the VM belonged to a rejected request of several VMs.
	Gang *gangRecord `json:"gang,omitempty"`
	// Heals: the VM's heal moves after hard failures of its machine; a
	// failed one (to empty) with the rule that refused it.
	Heals []healRecord `json:"heals,omitempty"`
}

// healRecord is one heal move of a VM (vm_move).
type healRecord struct {
	T          float64 `json:"t_s"`
	From       string  `json:"from"`
	To         string  `json:"to,omitempty"`
	FailedRule string  `json:"failed_rule,omitempty"`
}

// gangRecord is what happened to a rejected request of several VMs (gang
// allocation: all or none), from table gang_vm: the VM that found no
// machine and why, the VMs placed before it and rolled back, those never
// tried, and this VM's part. Positions count from 1 in the order the
// allocator tried the VMs.
type gangRecord struct {
	Request        int64          `json:"request_id"`
	VMs            int            `json:"vms"`
	Role           string         `json:"role"`
	Position       int            `json:"position"`
	HeldMachine    *int64         `json:"held_machine_id,omitempty"`
	HeldName       string         `json:"held_machine,omitempty"`
	FailedVM       int64          `json:"failed_vm_id"`
	FailedName     string         `json:"failed_vm"`
	FailedPosition int            `json:"failed_position"`
	FailedRule     string         `json:"failed_rule"`
	FailedShort    map[string]int `json:"failed_short,omitempty"`
	RolledBack     []gangVM       `json:"rolled_back"`
	NotTried       []int64        `json:"not_tried"`
	NotTriedNames  []string       `json:"not_tried_vms"`
}

// gangVM is a VM placed and then rolled back, with the machine it held.
type gangVM struct {
	VM          int64  `json:"vm_id"`
	Machine     int64  `json:"machine_id"`
	Name        string `json:"vm"`
	MachineName string `json:"machine"`
}

// loadGang reads VM vm's rejected request of several VMs; nil when its
// request was not one.
func loadGang(c *cli.Context, db *store.DB, run, vm int64) (*gangRecord, error) {
	rows, err := db.SQL().QueryContext(c.Context, store.MustQuery("explain_gang"), run, vm)
	if err != nil {
		return nil, fmt.Errorf("explain: run %d, VM %d: its request: %w", run, vm, err)
	}
	defer rows.Close()
	var g *gangRecord
	for rows.Next() {
		var id, pos int64
		var req int64
		var role string
		var machine sql.NullInt64
		var reason, rej, vmName, machineName sql.NullString
		if err := rows.Scan(&req, &id, &pos, &role, &machine, &reason, &rej, &vmName, &machineName); err != nil {
			return nil, err
		}
		name := cmp.Or(vmName.String, strconv.FormatInt(id, 10))
		if g == nil {
			g = &gangRecord{Request: req, RolledBack: []gangVM{}, NotTried: []int64{}, NotTriedNames: []string{}}
		}
		g.VMs++
		if id == vm {
			g.Role, g.Position = role, int(pos)+1
			if machine.Valid {
				g.HeldMachine = &machine.Int64
				g.HeldName = machineName.String
			}
		}
		switch role {
		case "rolled_back":
			g.RolledBack = append(g.RolledBack, gangVM{id, machine.Int64, name, machineName.String})
		case "failed":
			g.FailedVM, g.FailedName, g.FailedPosition, g.FailedRule = id, name, int(pos)+1, reason.String
			if rej.Valid {
				var mc optimizer.MachineCounts
				if err := json.Unmarshal([]byte(rej.String), &mc); err != nil {
					return nil, fmt.Errorf("explain: run %d, VM %d: stored rejections: %w", run, id, err)
				}
				g.FailedShort = mc.Short.Map()
			}
		case "not_tried":
			g.NotTried = append(g.NotTried, id)
			g.NotTriedNames = append(g.NotTriedNames, name)
		}
	}
	return g, rows.Err()
}

// ruleName is the name of the i-th score: from the score itself, else the
// recorded rule order (records written before rule names were stored hold
// bare numbers: they decode with empty rule names), else its position.
func (r *explainRecord) ruleName(scores []optimizer.RuleScore, i int) string {
	switch {
	case scores[i].Rule != "":
		return scores[i].Rule
	case i < len(r.RuleOrder):
		return r.RuleOrder[i]
	}
	return fmt.Sprintf("rule %d", i+1)
}

type machineCompare struct {
	Machine int64  `json:"machine_id"`
	Name    string `json:"name"`
	Cluster string `json:"cluster"`
	Verdict string `json:"verdict"`
}

func runExplain(c *cli.Context) error {
	format := c.String("format")
	db, err := openReadDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	if !c.IsSet("vm") {
		if !c.IsSet("machine") {
			return errors.New("give --vm ID (why a VM went where it did) or --machine NODE (why a node cannot be drained)")
		}
		return explainNode(c, db, format)
	}
	if c.IsSet("at") {
		return errors.New("--at applies to --machine without --vm (why a node cannot be drained)")
	}
	run := c.Int64("run")
	vm, err := snapshot.ResolveVM(c.Context, db, run, c.String("vm"))
	if err != nil {
		return err
	}
	var rec explainRecord
	var params string
	var machine sql.NullInt64
	var reason, crej, ctop, cfail, mrej, mtop, mfail sql.NullString
	var clusters, machines sql.NullInt64
	var latency sql.NullFloat64
	var vmName, machineName sql.NullString
	var origin sql.NullTime
	err = db.SQL().QueryRowContext(c.Context, store.MustQuery("explain_vm"), run, vm).Scan(
		&rec.Policy, &rec.Dataset, &params, &rec.Time, &machine, &rec.Outcome, &reason, &latency,
		&rec.Engine, &vmName, &machineName, &origin,
		&clusters, &crej, &ctop, &cfail, &machines, &mrej, &mtop, &mfail)
	if errors.Is(err, sql.ErrNoRows) {
		var engine string
		var name sql.NullString
		if db.SQL().QueryRowContext(c.Context, store.MustQuery("explain_absent"), run, vm).Scan(&engine, &name) == nil && name.Valid {
			if engine == datasets.ObservedEngine {
				return fmt.Errorf("explain: VM %s (id %d) has no placement in observed run %d: the source recorded it unplaced (a Pending pod); placelab whatif policies --run %d replays it through placelab's engines", name.String, vm, run, run)
			}
			return fmt.Errorf("explain: VM %s (id %d) is not in run %d (outside its window?)", name.String, vm, run)
		}
		return fmt.Errorf("explain: no VM %d in run %d (check placelab sql \"SELECT run_id, policy, dataset FROM run\")", vm, run)
	}
	if err != nil {
		return err
	}
	rec.Run, rec.VM, rec.Reason, rec.LatencyUS = run, vm, reason.String, latency.Float64
	rec.Name, rec.MachineName = cmp.Or(vmName.String, strconv.FormatInt(vm, 10)), machineName.String
	if origin.Valid {
		rec.Stamp = kunits.Time(origin.Time, rec.Time)
	}
	rec.Clusters, rec.Machines = clusters.Int64, machines.Int64
	if machine.Valid {
		rec.Machine = &machine.Int64
	}
	rec.FailedRule = cfail.String + mfail.String
	// The stored explanation, in the type the replay wrote it from.
	var row optimizer.ExplainRow
	if crej.Valid {
		cl := &row.Cluster
		if err := json.Unmarshal([]byte(crej.String), &cl.Rejected); err != nil {
			return fmt.Errorf("explain: run %d, VM %d: stored cluster rejections: %w", run, vm, err)
		}
		if ctop.Valid {
			if err := json.Unmarshal([]byte(ctop.String), &cl.Top); err != nil {
				return fmt.Errorf("explain: run %d, VM %d: stored clusters: %w", run, vm, err)
			}
		}
		rec.ClusterRejected, rec.Selected = cl.Rejected.Map(), cl.Top.Selected
	}
	if mrej.Valid {
		ml := &row.Machine
		if err := json.Unmarshal([]byte(mrej.String), &ml.Rejected); err != nil {
			return fmt.Errorf("explain: run %d, VM %d: stored rejections: %w", run, vm, err)
		}
		if err := json.Unmarshal([]byte(mtop.String), &ml.Top); err != nil {
			return fmt.Errorf("explain: run %d, VM %d: stored top machines: %w", run, vm, err)
		}
		rec.MachineRejected, rec.LeftAfter, rec.Short, rec.Evicted = ml.Rejected.Rejected.Map(), ml.Rejected.LeftAfter.Map(), ml.Rejected.Short.Map(), ml.Rejected.Evicted
		rec.Pick, rec.RuleOrder, rec.Top = ml.Top.PickOf(), ml.Top.RuleOrder, ml.Top.Top
	}
	if rec.Outcome == "rejected" {
		if rec.Gang, err = loadGang(c, db, run, vm); err != nil {
			return err
		}
	}
	rows, err := db.SQL().QueryContext(c.Context, store.MustQuery("explain_moves"), run, vm)
	if err != nil {
		return err
	}
	for rows.Next() {
		var seq int64
		var h healRecord
		var from, to, rule sql.NullString
		if err := rows.Scan(&seq, &h.T, &from, &to, &rule); err != nil {
			rows.Close()
			return err
		}
		h.From, h.To, h.FailedRule = from.String, to.String, rule.String
		rec.Heals = append(rec.Heals, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if c.IsSet("machine") {
		other, err := snapshot.ResolveMachine(c.Context, db, run, c.String("machine"))
		if err != nil {
			return err
		}
		cmp, err := compareMachine(c, db, &rec, int64(other))
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
		cmp.Verdict = fmt.Sprintf("the machine is %s: %s removes it", health, optimizer.RuleIsMachineHealthy)
	case len(rec.Selected) > 0 && !slices.Contains(rec.Selected, cmp.Cluster):
		cmp.Verdict = fmt.Sprintf("its cluster %s was not among the %d clusters passed to machine selection (%s): "+
			"either a cluster rule removed it or %s ranked it lower", cmp.Cluster, len(rec.Selected), strings.Join(rec.Selected, ", "), optimizer.RulePreferEmptierClusters)
	default:
		cmp.Verdict = compareScores(rec, other)
	}
	return cmp, nil
}

// compareScores says why the VM did not go to machine other, by the
// stored top machines and how the chosen machine was picked. It never
// calls the two machines tied when their recorded scores differ.
func compareScores(rec *explainRecord, other int64) string {
	var mine, chosen *optimizer.TopMachine
	for i := range rec.Top {
		if int64(rec.Top[i].Machine) == other {
			mine = &rec.Top[i]
		}
		if rec.Machine != nil && int64(rec.Top[i].Machine) == *rec.Machine {
			chosen = &rec.Top[i]
		}
	}
	how := ""
	switch rec.Pick {
	case optimizer.PickEviction:
		return fmt.Sprintf("no machine took the VM as the state stood (%s emptied the candidate set); it went where evicting %d low-priority VMs made room", rec.FailedRule, rec.Evicted)
	case optimizer.PickAvoidance:
		how = "the chosen machine was picked at random among the top machines by conflict avoidance, not as the best by the preference rules"
	case optimizer.PickSafety:
		how = "the chosen machine was picked by the safety score among the best-packing machines, not as the best by the preference rules"
	case "", optimizer.PickBest:
		if chosen == nil && rec.Pick == optimizer.PickBest && len(rec.Top) > 0 {
			chosen = &rec.Top[0] // picked among the machines tied with the best: the best's scores are its scores
		}
	default: // a baseline's policy: no preference rules, no scores
		return fmt.Sprintf("the %s policy chose by its own order among every machine the rule set accepts (%s); it records no per-machine scores",
			rec.Pick, fmtCounts(rec.MachineRejected))
	}
	switch {
	case rec.Machine == nil:
		return "no machine was chosen"
	case mine == nil:
		v := fmt.Sprintf("it was not among the %d best machines recorded: a machine rule removed it (%s) "+
			"or a preference rule ranked it below them", len(rec.Top), fmtCounts(rec.MachineRejected))
		if how != "" {
			v += "; " + how
		}
		return v
	case chosen == nil:
		if how != "" {
			return how + "; the chosen machine's scores were not recorded"
		}
		return "the chosen machine's scores were not recorded"
	}
	for i := range mine.Scores {
		if i >= len(chosen.Scores) || mine.Scores[i].Score == chosen.Scores[i].Score {
			continue
		}
		name := rec.ruleName(mine.Scores, i)
		a, b := mine.Scores[i].Score, chosen.Scores[i].Score
		if a > b {
			v := fmt.Sprintf("it lost on %s: score %d vs %d for the chosen machine (lower is better; earlier rules tied)", name, a, b)
			if how != "" {
				v += "; " + how
			}
			return v
		}
		v := fmt.Sprintf("it scored better on %s (%d vs %d for the chosen machine; lower is better; earlier rules tied)", name, a, b)
		if how != "" {
			return v + ", but " + how
		}
		return v + ", yet was not chosen"
	}
	if how != "" {
		return "it tied with the chosen machine on every recorded rule; " + how
	}
	return "it tied with the chosen machine on every rule; the seeded random tie-break picked the other"
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
	fmt.Fprintf(w, "run %d (%s on %s), VM %s (id %d) at %s: %s", r.Run, r.Policy, r.Dataset, r.Name, r.VM, atText(r.Time, r.Stamp), r.Outcome)
	if r.Machine != nil {
		fmt.Fprintf(w, " on machine %s (id %d)", cmp.Or(r.MachineName, strconv.FormatInt(*r.Machine, 10)), *r.Machine)
	}
	if r.Engine == datasets.ObservedEngine {
		// An observed run is the cluster's own record: no placelab engine
		// decided it, and nothing was timed.
		fmt.Fprintf(w, ", as the cluster's own scheduler recorded it (observed run: placelab decided nothing; placelab whatif policies replays it through placelab's engines)\n")
		return
	}
	g := r.Gang
	switch {
	case g != nil && g.Role == "rolled_back":
		held := ""
		if g.HeldMachine != nil {
			held = " on machine " + cmp.Or(g.HeldName, strconv.FormatInt(*g.HeldMachine, 10))
		}
		fmt.Fprintf(w, " with its request: this VM was placed%s, then rolled back when VM %s of the request found no machine", held, g.FailedName)
	case g != nil && g.Role == "not_tried":
		fmt.Fprintf(w, " with its request: this VM was never tried (VM %s of the request found no machine before its turn)", g.FailedName)
	case r.Reason != "":
		fmt.Fprintf(w, " (%s)", r.Reason)
	}
	fmt.Fprintf(w, ", decided in %.1f µs\n", r.LatencyUS)
	for _, h := range r.Heals {
		if h.To != "" {
			fmt.Fprintf(w, "  at t=%.0fs its machine %s failed: healed onto %s\n", h.T, h.From, h.To)
			continue
		}
		why := h.FailedRule
		if why == "" {
			why = "no reason stored (a run written before placelab kept it)"
		}
		fmt.Fprintf(w, "  at t=%.0fs its machine %s failed: the heal found no machine (%s); down until its end\n", h.T, h.From, why)
	}
	if g != nil {
		printGang(w, g)
	}
	switch {
	case g != nil && g.Role == "not_tried":
		// nothing was decided for this VM
	case r.Clusters == 0 && r.Machines == 0:
		fmt.Fprintln(w, "  no explanation recorded for this VM (the run recorded none: --no-explain, or agents)")
	case g != nil && g.Role == "rolled_back":
		fmt.Fprintln(w, "  its own machine selection, before the rollback:")
	}
	if r.Clusters > 0 {
		passed := strings.Join(r.Selected, ", ")
		if len(r.Selected) == 0 {
			passed = "every valid cluster"
		}
		fmt.Fprintf(w, "  clusters: %d candidates; %s; passed on: %s\n", r.Clusters, fmtCounts(r.ClusterRejected), passed)
	}
	if r.Machines > 0 {
		fmt.Fprintf(w, "  machines: %d in the clusters passed on; %s\n", r.Machines, fmtCounts(r.MachineRejected))
		var left []string
		for _, k := range r.RuleOrder {
			if n, ok := r.LeftAfter[k]; ok {
				left = append(left, fmt.Sprintf("%s %d", k, n))
			}
		}
		if len(left) > 0 {
			fmt.Fprintf(w, "  candidates left after: %s\n", strings.Join(left, ", "))
		}
		if len(r.Top) > 0 {
			fmt.Fprintf(w, "  best machines (lower is better):\n")
			for _, t := range r.Top {
				var sc []string
				for i, s := range t.Scores {
					sc = append(sc, fmt.Sprintf("%s %d", r.ruleName(t.Scores, i), s.Score))
				}
				fmt.Fprintf(w, "    %8d %-24s %s\n", t.Machine, t.Name, strings.Join(sc, ", "))
			}
		}
	}
	switch r.Pick {
	case "", optimizer.PickBest:
	case optimizer.PickEviction:
		fmt.Fprintf(w, "  placed by eviction: no machine took the VM as the state stood (%s emptied the candidate set%s); %d low-priority VMs were evicted to make room\n",
			r.FailedRule, fmtShort(r.Short), r.Evicted)
	case optimizer.PickAvoidance:
		fmt.Fprintln(w, "  picked by conflict avoidance: at random among the top machines, not the best by the preference rules")
	case optimizer.PickSafety:
		fmt.Fprintln(w, "  picked by the safety score among the best-packing machines, not the best by the preference rules")
	default:
		fmt.Fprintf(w, "  picked by the %s policy among every machine the rules accept\n", r.Pick)
	}
	if r.FailedRule != "" && r.Pick != optimizer.PickEviction {
		fmt.Fprintf(w, "  failed: %s emptied the candidate set%s\n", r.FailedRule, fmtShort(r.Short))
	}
	if r.Compare != nil {
		fmt.Fprintf(w, "  machine %d (%s, cluster %s): %s\n", r.Compare.Machine, r.Compare.Name, r.Compare.Cluster, r.Compare.Verdict)
	}
}

// printGang tells a rejected request of several VMs as it happened.
func printGang(w io.Writer, g *gangRecord) {
	fmt.Fprintf(w, "  request %d: %d VMs, placed all or none; this VM is %s in the order the allocator took them\n", g.Request, g.VMs, ordinal(g.Position))
	fmt.Fprintf(w, "  failed: VM %s, %s tried, found no machine: %s emptied its candidate set%s\n",
		g.FailedName, ordinal(g.FailedPosition), g.FailedRule, fmtShort(g.FailedShort))
	ids := make([]string, len(g.RolledBack))
	for i, v := range g.RolledBack {
		ids[i] = v.Name + " on " + v.MachineName
	}
	fmt.Fprintf(w, "  placed, then rolled back: %d VMs%s\n", len(g.RolledBack), listIDs(ids))
	fmt.Fprintf(w, "  never tried: %d VMs%s\n", len(g.NotTried), listIDs(g.NotTriedNames))
}

func listIDs(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " (" + strings.Join(ids, ", ") + ")"
}

// ordinal is 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st, ….
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// fmtShort names the short dimensions: " (short of cores on 3 machines,
// memory on 1)", or "".
func fmtShort(short map[string]int) string {
	if len(short) == 0 {
		return ""
	}
	keys := make([]string, 0, len(short))
	for k := range short {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if short[keys[i]] != short[keys[j]] {
			return short[keys[i]] > short[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for i, k := range keys {
		unit := ""
		if i == 0 {
			unit = " machines"
			if short[k] == 1 {
				unit = " machine"
			}
		}
		parts = append(parts, fmt.Sprintf("%s on %d%s", k, short[k], unit))
	}
	return "; short of " + strings.Join(parts, ", ")
}

// explainNode answers why a node cannot be drained (analysis.ExplainMachine).
func explainNode(c *cli.Context, db *store.DB, format string) error {
	at, err := timeFlag(c, "at", math.NaN())
	if err != nil {
		return err
	}
	run, node := c.Int64("run"), c.String("machine")
	why, err := whatif.ExplainMachine(c.Context, db, run, node, at)
	if err != nil {
		// a machine_id given for a node: look its name up
		if id, perr := strconv.ParseInt(node, 10, 32); perr == nil {
			var name string
			if qerr := db.SQL().QueryRowContext(c.Context, store.MustQuery("machine_by_run"), run, id).Scan(&name); qerr == nil {
				why, err = whatif.ExplainMachine(c.Context, db, run, name, at)
			}
		}
		if err != nil {
			return err
		}
	}
	if format == "json" {
		return printJSON(c.App.Writer, why)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "run %d (%s) at %s, node %s: %d pods that can move, %d pinned (DaemonSet/static, they go with it)\n",
		why.Run, why.Dataset, atText(why.T, why.Time), why.Node, why.Pods, why.Pinned)
	fmt.Fprintln(w, "  "+why.Text)
	for _, r := range why.Reasons {
		detail := ""
		if r.Detail != "" {
			detail = " (" + r.Detail + ")"
		}
		fmt.Fprintf(w, "  %5d nodes: %s%s\n", r.Count, r.Code, detail)
	}
	for i, m := range why.Moves {
		if i == 20 {
			fmt.Fprintf(w, "  … %d more moves (use --format json)\n", len(why.Moves)-20)
			break
		}
		fmt.Fprintf(w, "  move %s -> %s\n", m.Pod, m.To)
	}
	return nil
}
