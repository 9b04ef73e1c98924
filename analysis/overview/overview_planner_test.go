package overview

import (
	"context"
	"math"
	"regexp"
	"strings"
	"testing"

	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	"placelab/analysis/report"
	"placelab/analysis/whatif"
	"placelab/optimizer"
)

// TestOverviewPlannerSection: a plan stored by placelab whatif migrate
// appears in the overview's planner section with its source run, its
// counts (which add up: in use after = before − removed + filled, and agree
// with the plan's report) and its moves by the user's names — VM and
// machine names, not ids (issue 52 item 10); where the schema has table
// capacity_answer, a stored answer is listed with its target, shed rate
// and lower bound. No cell of the page prints NULL.
func TestOverviewPlannerSection(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.TinyDataset(t, db, "tiny")
	// Nothing stored yet: one section says which commands store plans.
	page, err := Page(ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	if s := findSection(page, "What a planner asks"); s == nil || !strings.Contains(s.Note, "placelab whatif migrate") {
		t.Fatalf("no planner section saying how to store a plan: %+v", s)
	}
	// A spread-out placement (worst fit over the tiny zone), then a plan
	// that packs it.
	tr, err := analysis.LoadTrace(ctx, db, "tiny", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := replay.NewAllocator("worstfit", tr, optimizer.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Replay(ctx, tr, alloc, replay.ReplayOptions{From: math.Inf(-1), To: math.Inf(1), Interval: 600})
	if err != nil {
		t.Fatal(err)
	}
	run, err := analysis.WriteRun(ctx, db, analysis.RunMeta{Engine: "replay", Policy: "worstfit", Dataset: "tiny", Version: "test"}, res)
	if err != nil {
		t.Fatal(err)
	}
	opts := whatif.DefaultMigrateOptions()
	opts.At = 3850 // VMs b, c, d and f alive
	rep, err := whatif.Migrate(ctx, db, run, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.PlanRun == 0 || len(rep.Moves) == 0 {
		t.Fatalf("the plan moved nothing or was not stored: %+v", rep)
	}
	plans, err := StoredPlans(ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 {
		t.Fatalf("%d stored plans, want 1", len(plans))
	}
	p := plans[0]
	if p.PlanRun != rep.PlanRun || p.SourceRun != run || p.Plan != "migrate-plan" || p.SourcePolicy != "worstfit" || p.T != rep.At {
		t.Errorf("plan %+v; want run %d planned on run %d (worstfit) at %g", p, rep.PlanRun, run, rep.At)
	}
	if p.NodesAfter != p.NodesBefore-p.NodesRemoved+p.NodesFilled || p.NodesRemoved != rep.MachinesFreed {
		t.Errorf("nodes before %d, removed %d, filled %d, after %d; the plan freed %d", p.NodesBefore, p.NodesRemoved, p.NodesFilled, p.NodesAfter, rep.MachinesFreed)
	}
	// The moves as the command printed them, a VM moved twice once (its
	// first machine and its last).
	want := map[string]whatif.MoveRecord{}
	for _, m := range rep.Moves {
		if w, ok := want[m.VM]; ok {
			m.From = w.From
		}
		want[m.VM] = m
	}
	for vm, m := range want {
		if m.From == m.To {
			delete(want, vm)
		}
	}
	if len(p.Moves) != len(want) {
		t.Errorf("%d moves, want %d (%v)", len(p.Moves), len(want), rep.Moves)
	}
	name := regexp.MustCompile(`^vm[a-f]$`)
	machine := regexp.MustCompile(`^m[0-3]$`)
	for _, m := range p.Moves {
		w := want[m.VM]
		if !name.MatchString(m.VM) || !machine.MatchString(m.From) || !machine.MatchString(m.To) || m.From != w.From || m.To != w.To {
			t.Errorf("move %+v, want names as the command printed them: %+v", m, w)
		}
	}
	answers := false
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO capacity_answer (dataset, load_id, created_at, policy, machines, max_rejection, target_counts,
		shed_rate, lp_bound_machines, monotone, answer) VALUES ('tiny', 1, now(), 'protean', 3, 0.001, 'shed', 0.0005, 2.4, true,
		'{"policy":"protean","machines":3,"zone_machines":4,"max_rejection":0.001,"target_counts":"shed","shed_rate":0.0005,"shed_vms":1,"vms":2000,"lp_bound_machines":2.4,"lp_mix_machines":0}')`); err == nil {
		answers = true
	} else if !strings.Contains(err.Error(), "capacity_answer") {
		t.Fatal(err)
	}
	page, err = Page(ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	sec := findSection(page, "What a planner asks: stored plans")
	if sec == nil || sec.Table == nil || len(sec.Table.Rows) != 1 {
		t.Fatalf("no table of stored plans: %+v", sec)
	}
	ps := findSection(page, "Plan run ")
	if ps == nil || ps.Table == nil || len(ps.Table.Rows) != len(p.Moves) || ps.Table.Columns[0] != "vm" {
		t.Fatalf("no table of the plan's moves by name: %+v", ps)
	}
	if answers {
		cs := findSection(page, "What a planner asks: capacity answers")
		if cs == nil || cs.Table == nil || len(cs.Table.Rows) != 1 {
			t.Fatalf("no table of capacity answers: %+v", cs)
		}
		row := cs.Table.Rows[0]
		for c, v := range map[string]any{"machines": int64(3), "zone_machines": int64(4), "target_pct": 0.1, "shed_pct": 0.05,
			"lower_bound": int64(3), "mix_lower_bound": nil, "target_counts": "shed"} {
			if got := row[analysis.Col(cs.Table, c)]; got != v {
				t.Errorf("capacity answer %s = %v (%T), want %v", c, got, got, v)
			}
		}
	} else {
		t.Log("the schema has no table capacity_answer: its section is not checked")
	}
	html, err := page.Render()
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`<td[^>]*>(NULL|&lt;nil&gt;|NaN)</td>`).Find(html); m != nil {
		t.Errorf("the page prints %s", m)
	}
}

// findSection is the first section of page whose title starts with prefix.
func findSection(page *report.Page, prefix string) *report.Section {
	for i := range page.Sections {
		if strings.HasPrefix(page.Sections[i].Title, prefix) {
			return &page.Sections[i]
		}
	}
	return nil
}
