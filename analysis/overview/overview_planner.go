package overview

import (
	"context"
	"fmt"
	"math"
	"sort"

	"placelab/analysis"
	"placelab/analysis/report"
	store "placelab/sql"
)

// The planner's part of the overview: what placelab whatif migrate,
// placelab whatif drain and placelab capacity answered, by the user's names.
const (
	// maxPlanMoves caps the moves listed per plan; the section states the
	// total.
	maxPlanMoves = 50
	// maxPlanSections caps the plans given a section of their own (the
	// latest); the table of plans lists them all.
	maxPlanSections = 6
)

// PlanSummary is one stored plan (an offline run of policy migrate-plan or
// drain-plan) as a planner reads it. Nodes in use hold a VM or pod that can
// move (not a DaemonSet's or static pod, which stays on its node); the
// plan empties NodesRemoved of NodesBefore and fills NodesFilled nodes that
// held none, so NodesAfter = NodesBefore − NodesRemoved + NodesFilled.
type PlanSummary struct {
	PlanRun      int64
	Plan         string // migrate-plan or drain-plan
	Dataset      string
	SourceRun    int64
	SourcePolicy string
	T            float64 // the instant planned, seconds
	Budget       any     // the move budget (0: none); nil when not stored
	NodesBefore  int
	NodesRemoved int
	NodesFilled  int
	NodesAfter   int
	// Moves are the VMs the plan puts on another machine, in vm_id order;
	// Placed the VMs it places that the source run held nowhere then.
	Moves  []PlanMove
	Placed int
	// StatedMoves and StatedRemoved are what the command printed (run
	// params), nil when not stored.
	StatedMoves, StatedRemoved any
}

// PlanMove is one move of a plan, by name.
type PlanMove struct {
	VMID     int64
	VM       string
	From, To string
}

// StoredPlans reads every stored plan of dataset ("" = all), its counts
// computed from the source run's placement at the plan's instant and the
// plan's own (report_plans, report_plan_vms).
func StoredPlans(ctx context.Context, db *store.DB, dataset string) ([]PlanSummary, error) {
	plans, err := db.Query(ctx, store.MustQuery("report_plans"), dataset)
	if err != nil {
		return nil, fmt.Errorf("analysis: report_plans: %w", err)
	}
	var out []PlanSummary
	for _, row := range plans.Rows {
		get := func(c string) any { return row[analysis.Col(plans, c)] }
		ps := PlanSummary{PlanRun: int64(analysis.Num(get("plan_run"))), Plan: fmt.Sprint(get("plan")), Dataset: planText(get("dataset")),
			SourceRun: int64(analysis.Num(get("source_run"))), SourcePolicy: planText(get("source_policy")), T: analysis.Num(get("t_s")),
			Budget: get("budget"), StatedMoves: get("stated_moves"), StatedRemoved: get("stated_removed")}
		vms, err := db.Query(ctx, store.MustQuery("report_plan_vms"), ps.PlanRun, ps.SourceRun, ps.T)
		if err != nil {
			return nil, fmt.Errorf("analysis: report_plan_vms of run %d: %w", ps.PlanRun, err)
		}
		ps.tally(vms)
		out = append(out, ps)
	}
	return out, nil
}

// tally counts a plan's nodes and moves from its VMs (report_plan_vms).
func (ps *PlanSummary) tally(vms *store.Result) {
	ic, vc, pc := analysis.Col(vms, "vm_id"), analysis.Col(vms, "vm"), analysis.Col(vms, "pinned")
	fi, fn, ti, tn := analysis.Col(vms, "from_id"), analysis.Col(vms, "from_machine"), analysis.Col(vms, "to_id"), analysis.Col(vms, "to_machine")
	before, after := map[int64]bool{}, map[int64]bool{}
	for _, r := range vms.Rows {
		if pinned, _ := r[pc].(bool); pinned {
			continue
		}
		if r[fi] != nil {
			before[int64(analysis.Num(r[fi]))] = true
		}
		if r[ti] != nil {
			after[int64(analysis.Num(r[ti]))] = true
		}
		switch {
		case r[fi] == nil && r[ti] != nil:
			ps.Placed++
		case r[fi] != nil && r[ti] != nil && analysis.Num(r[fi]) != analysis.Num(r[ti]):
			ps.Moves = append(ps.Moves, PlanMove{VMID: int64(analysis.Num(r[ic])), VM: planText(r[vc]), From: planText(r[fn]), To: planText(r[tn])})
		}
	}
	ps.NodesBefore, ps.NodesAfter = len(before), len(after)
	for m := range before {
		if !after[m] {
			ps.NodesRemoved++
		}
	}
	for m := range after {
		if !before[m] {
			ps.NodesFilled++
		}
	}
	sort.Slice(ps.Moves, func(i, j int) bool { return ps.Moves[i].VMID < ps.Moves[j].VMID })
}

// command names the placelab command that stores a plan of this policy.
func (ps *PlanSummary) command() string {
	if ps.Plan == "drain-plan" {
		return "whatif drain"
	}
	return "whatif migrate"
}

func planText(x any) string {
	if x == nil {
		return ""
	}
	return fmt.Sprint(x)
}

// planHours is t seconds as hours, rounded to 0.01 h.
func planHours(t float64) float64 { return math.Round(t/36) / 100 }

// plannerSections are the overview's planner sections: the stored plans
// (one table, then each plan's moves by name, the latest maxPlanSections)
// and, where the schema has table capacity_answer, the stored capacity
// answers. With nothing stored, one section says which commands store
// them.
func plannerSections(ctx context.Context, db *store.DB, dataset string) ([]report.Section, error) {
	plans, err := StoredPlans(ctx, db, dataset)
	if err != nil {
		return nil, err
	}
	answers, answersSQL, err := capacityAnswers(ctx, db, dataset)
	if err != nil {
		return nil, err
	}
	plansSQL := store.MustQuery("report_plans") + "\n\n" + store.MustQuery("report_plan_vms")
	if len(plans) == 0 && (answers == nil || len(answers.Rows) == 0) {
		return []report.Section{{Title: "What a planner asks",
			Note: "No plan or capacity answer is stored yet: placelab whatif migrate --run N and placelab whatif drain --run N store their plans " +
				"(the placement after the moves) and placelab capacity its answers; each then shows here with the machines and VMs by their names.",
			SQL: plansSQL}}, nil
	}
	var secs []report.Section
	if len(plans) > 0 {
		secs = append(secs, report.Section{Title: "What a planner asks: stored plans",
			Note: "Every plan stored by placelab whatif migrate (migrate-plan) and placelab whatif drain (drain-plan), on the run and at the instant it was planned. " +
				"Nodes in use hold a VM or pod that can move (a DaemonSet's or static pod stays on its node and leaves with it); the plan empties removed of them " +
				"and fills filled that held none: in_use_after = in_use_before − removed + filled. budget: the moves allowed (0: no limit). moves: VMs the plan puts on another machine " +
				"(placed: VMs it places that the run held nowhere then). Counted from the run's placement at that instant and the plan's own, so they agree whatever the command printed.",
			Table: plansTable(plans), SQL: plansSQL})
		shown := plans
		if len(shown) > maxPlanSections {
			shown = shown[len(shown)-maxPlanSections:]
		}
		for i := range shown {
			secs = append(secs, planSection(&shown[i]))
		}
	}
	if answers != nil {
		note := "Every answer stored by placelab capacity: the smallest inventory on which the policy meets the target (machines, of zone_machines), the share of VMs it leaves unserved " +
			"(shed_pct, in percent; target_counts says what counts: shed, every VM rejected or evicted and never re-placed, or rejected only) against the target (target_pct), and the lower bounds at the peak, in machines: " +
			"no packing holds the peak's VMs on fewer than lower_bound of the zone's SKUs, nor on fewer than mix_lower_bound of its SKU mix. " +
			"An answer of placelab capacity --catalog is a fleet of catalog types: cost_per_hour is its $ per hour (Σ nodes × price) beside plan_cost_per_hour, the cheapest fleet holding the peak's VMs (placelab plan)."
		if len(answers.Rows) == 0 {
			note = "No capacity answer is stored yet (placelab capacity --dataset NAME stores one unless --no-store)."
			answers = nil
		}
		secs = append(secs, report.Section{Title: "What a planner asks: capacity answers", Note: note, Table: answers, SQL: answersSQL})
	}
	return secs, nil
}

// plansTable is one row per plan.
func plansTable(plans []PlanSummary) *store.Result {
	t := &store.Result{Columns: []string{"plan_run", "command", "dataset", "source_run", "source_policy", "at_hour", "budget",
		"in_use_before", "removed", "filled", "in_use_after", "moves", "placed"}}
	for _, p := range plans {
		t.Rows = append(t.Rows, []any{p.PlanRun, p.command(), p.Dataset, p.SourceRun, p.SourcePolicy, planHours(p.T), p.Budget,
			p.NodesBefore, p.NodesRemoved, p.NodesFilled, p.NodesAfter, len(p.Moves), p.Placed})
	}
	return t
}

// planSection is one plan's moves by name, under its counts in words.
func planSection(p *PlanSummary) report.Section {
	note := fmt.Sprintf("placelab %s on run %d (%s, dataset %s) at hour %v: %d %s in use before; the plan empties %d and moves %s, leaving %d in use.",
		p.command(), p.SourceRun, p.SourcePolicy, p.Dataset, planHours(p.T), p.NodesBefore, analysis.Plural(p.NodesBefore, "node", "nodes"),
		p.NodesRemoved, planCount(len(p.Moves), "VM", "VMs"), p.NodesAfter)
	if p.NodesFilled > 0 {
		note += fmt.Sprintf(" It fills %d %s that held none.", p.NodesFilled, analysis.Plural(p.NodesFilled, "node", "nodes"))
	}
	if p.Placed > 0 {
		note += fmt.Sprintf(" It also places %s the run held nowhere then.", planCount(p.Placed, "VM", "VMs"))
	}
	if n, ok := p.StatedMoves.(int64); ok && int(n) != len(p.Moves) {
		note += fmt.Sprintf(" The command printed %d moves, one per step: a VM it moves more than once is listed here once, from its machine before the plan to its machine after.", n)
	}
	if n, ok := p.StatedRemoved.(int64); ok && int(n) != p.NodesRemoved {
		note += fmt.Sprintf(" It printed %d nodes removed, counting nodes that held no VM or pod that can move.", n)
	}
	rest := fmt.Sprintf("listed by vm_id; the plan is stored as run %d, its placement after the moves", p.PlanRun)
	t := &store.Result{Columns: []string{"vm", "from_machine", "to_machine", "vm_id"}}
	for _, m := range p.Moves {
		t.Rows = append(t.Rows, []any{m.VM, m.From, m.To, m.VMID})
	}
	sec := report.Section{Title: fmt.Sprintf("Plan run %d: %s of run %d", p.PlanRun, p.command(), p.SourceRun), Note: note, MaxRows: maxPlanMoves, Rest: rest}
	if len(p.Moves) > 0 {
		sec.Table = t
	}
	return sec
}

// planCount is n and the noun for it: "1 VM", "47 VMs".
func planCount(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, analysis.Plural(n, one, many))
}

// capacityAnswers reads the stored capacity answers, or nil when the
// schema has no table capacity_answer.
func capacityAnswers(ctx context.Context, db *store.DB, dataset string) (*store.Result, string, error) {
	var has bool
	if err := db.SQL().QueryRowContext(ctx, store.MustQuery("report_has_table"), "capacity_answer").Scan(&has); err != nil {
		return nil, "", fmt.Errorf("analysis: report_has_table: %w", err)
	}
	if !has {
		return nil, "", nil
	}
	q := store.MustQuery("report_capacity_answers")
	res, err := db.Query(ctx, q, dataset)
	if err != nil {
		return nil, "", fmt.Errorf("analysis: report_capacity_answers: %w", err)
	}
	return res, q, nil
}
