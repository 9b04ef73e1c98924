package analysis_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/datasets"
	"placelab/datasets/synth"
	store "placelab/sql"
)

// availSpec fails machines and racks often enough to heal many VMs in two
// days, with fault and update domains on and a healing buffer.
func availSpec(policy string) analysis.Spec {
	s := analysis.DefaultSpec("s")
	s.Policy = policy
	s.Engine.Explain = false
	s.Failures = "machine-afr=60,rack-afr=20,reboot-share=0.5"
	s.FaultDomains, s.UpdateDomains = 3, 5
	s.Engine.Buffers.Healing = 1
	return s
}

// TestAvailabilityRunChecks: a stored run with failures, healing and
// domains passes placelab check on every policy (the SQL check sees its
// outages, heal moves and domains); then each kind of corruption of the
// stored rows is found by the check: a VM healed onto a machine during
// its outage, a VM left on a machine that failed hard, two VMs of a tenant
// in different fault domains on one rack.
func TestAvailabilityRunChecks(t *testing.T) {
	ctx := context.Background()
	db := testkit.AvailDB(t)
	for _, policy := range []string{"protean", "bestfit", "random"} {
		res, err := analysis.Run(ctx, db, availSpec(policy), analysis.RunOptions{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if s.HealVMs == 0 || len(res.Outages) == 0 || len(res.Moves) == 0 {
			t.Fatalf("%s: nothing healed: heal VMs %d, outages %d, moves %d", policy, s.HealVMs, len(res.Outages), len(res.Moves))
		}
		rep, err := analysis.CheckRun(ctx, db, s.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() || rep.Outages != int64(len(res.Outages)) || rep.Moves != int64(len(res.Moves)) || rep.Domains == 0 {
			t.Fatalf("%s: check %+v", policy, rep)
		}
	}
	run := int64(1)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.SQL().ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	problems := func() map[string]bool {
		t.Helper()
		rep, err := analysis.CheckRun(ctx, db, run)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, v := range rep.Avail {
			out[v.Problem] = true
		}
		return out
	}
	// 1. A heal move onto a machine that is down at that instant.
	var vm, from, seq int64
	var at float64
	if err := db.SQL().QueryRowContext(ctx, `SELECT vm_id, from_machine, seq, t_s FROM vm_move WHERE run_id = 1 AND machine_id IS NOT NULL ORDER BY t_s LIMIT 1`).Scan(&vm, &from, &seq, &at); err != nil {
		t.Fatal(err)
	}
	exec(`UPDATE vm_move SET machine_id = from_machine WHERE run_id = 1 AND vm_id = ? AND seq = ?`, vm, seq)
	if p := problems(); !p["placed_during_outage"] {
		t.Fatalf("a VM healed onto its own failed machine was not found: %v", p)
	}
	exec(`DELETE FROM vm_move WHERE run_id = 1 AND vm_id = ? AND seq >= ?`, vm, seq)
	// 2. Without its move the VM stayed on the failed machine.
	if p := problems(); !p["stayed_through_failure"] {
		t.Fatalf("a VM left on a failed machine was not found: %v", p)
	}
	exec(`DELETE FROM outage WHERE run_id = 1 AND machine_id = ?`, from)
	exec(`DELETE FROM vm_move WHERE run_id = 1 AND from_machine = ?`, from)
	// 3. Two VMs of one tenant, in different fault domains, on one rack.
	var a, b int64
	err := db.SQL().QueryRowContext(ctx, `
		SELECT x.vm_id, y.vm_id FROM placement x
		JOIN placement y ON y.run_id = x.run_id AND y.machine_id = x.machine_id AND y.vm_id > x.vm_id
		JOIN run r ON r.run_id = x.run_id
		JOIN vm vx ON vx.load_id = r.load_id AND vx.vm_id = x.vm_id
		JOIN vm vy ON vy.load_id = r.load_id AND vy.vm_id = y.vm_id
		WHERE x.run_id = 1 AND vx.start_s < coalesce(vy.end_s, 'infinity'::DOUBLE) AND vy.start_s < coalesce(vx.end_s, 'infinity'::DOUBLE)
		  AND x.t_s < coalesce(vy.end_s, 'infinity'::DOUBLE) AND y.t_s < coalesce(vx.end_s, 'infinity'::DOUBLE)
		  AND NOT EXISTS (SELECT 1 FROM vm_move m WHERE m.run_id = 1 AND m.vm_id IN (x.vm_id, y.vm_id))
		LIMIT 1`).Scan(&a, &b)
	if err != nil {
		t.Fatal(err)
	}
	exec(`UPDATE vm SET tenant = 'same-tenant' WHERE vm_id IN (?, ?)`, a, b)
	exec(`UPDATE placement_domain SET fault_domain = 0 WHERE run_id = 1 AND vm_id = ?`, a)
	exec(`UPDATE placement_domain SET fault_domain = 1 WHERE run_id = 1 AND vm_id = ?`, b)
	if p := problems(); !p["fault_domain_shared_rack"] {
		t.Fatalf("two fault domains of a tenant on one rack were not found: %v", p)
	}
}

// TestFailureFileBadRow: a failure file with a bad row is refused with
// an error naming file, row and field, and nothing is stored.
func TestFailureFileBadRow(t *testing.T) {
	ctx := context.Background()
	db := testkit.AvailDB(t)
	dir := t.TempDir()
	var name string
	if err := db.SQL().QueryRowContext(ctx, `SELECT name FROM machine WHERE dataset = 's' ORDER BY machine_id LIMIT 1`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.csv")
	bad := filepath.Join(dir, "bad.csv")
	unknown := filepath.Join(dir, "unknown.csv")
	os.WriteFile(good, []byte("t_s,machine,rack,duration_s,kind\n3600,"+name+",,7200,hard\n"), 0o644)
	os.WriteFile(bad, []byte("t_s,machine,rack,duration_s,kind\n3600,"+name+",,7200,hard\n7200,"+name+",,-5,reboot\n"), 0o644)
	os.WriteFile(unknown, []byte("t_s,machine,rack,duration_s,kind\n3600,no-such-machine,,7200,hard\n"), 0o644)
	spec := analysis.DefaultSpec("s")
	spec.Engine.Explain = false
	for _, tc := range []struct {
		file, want string
	}{
		{bad, "row 3"}, {unknown, "no-such-machine"},
	} {
		s := spec
		s.FailureFile = tc.file
		_, err := analysis.Run(ctx, db, s, analysis.RunOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: error %v, want one naming the file and %q", tc.file, err, tc.want)
		}
		var re *datasets.RowError
		if tc.file == bad && !errors.As(err, &re) {
			t.Fatalf("not a row error: %v", err)
		}
	}
	var runs int
	db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM run`).Scan(&runs)
	if runs != 0 {
		t.Fatalf("%d runs stored after refused failure files", runs)
	}
	s := spec
	s.FailureFile = good
	res, err := analysis.Run(ctx, db, s, analysis.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outages) != 1 || res.Outages[0].Kind != "hard" || res.Outages[0].Source != "file" {
		t.Fatalf("outages %+v", res.Outages)
	}
	rep, err := analysis.CheckRun(ctx, db, res.Summary.RunID)
	if err != nil || !rep.OK() {
		t.Fatalf("check %+v %v", rep, err)
	}
}

// TestAvailabilityAgents: agents in simulated time and in real time
// (goroutines) replay the same outages (the store's machines go down in
// every view, a hard failure's VMs come back as heal requests the agents
// decide and commit), the store's invariants hold after every commit, and
// the stored run passes the SQL check: no placement during an outage, every
// failed machine's VMs moved, every healed VM placed at or after its
// failure, every spread kept. In simulated time some heal commits land
// after their failure (the agents take time to decide).
func TestAvailabilityAgents(t *testing.T) {
	ctx := context.Background()
	for _, tm := range []string{"sim", "real"} {
		t.Run(tm, func(t *testing.T) {
			db := testkit.AvailDB(t)
			spec := availSpec("protean").WithAgents(3, tm)
			if tm == "sim" {
				spec.Agents.Speedup = 10
			}
			spec.Agents.CheckEvery = true
			res, err := analysis.Run(ctx, db, spec, analysis.RunOptions{Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summary
			if s.HealVMs == 0 || len(res.Moves) == 0 || s.MachineFailures == 0 {
				t.Fatalf("nothing healed: %+v", s)
			}
			late := 0
			for _, m := range res.Moves {
				if m.To >= 0 && m.Placed > m.T {
					late++
				}
			}
			if tm == "sim" && late == 0 {
				t.Fatal("no heal committed after its failure: the agents decided nothing")
			}
			rep, err := analysis.CheckRun(ctx, db, s.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() || rep.Moves != int64(len(res.Moves)) {
				t.Fatalf("check %+v", rep)
			}
			if s.VMs != 3000 || s.Accepted+s.Rejected != s.VMs {
				t.Fatalf("placement rows: %d VMs, %d accepted, %d rejected", s.VMs, s.Accepted, s.Rejected)
			}
		})
	}
}

// TestStaysFollowMoves: what every reader of a stored run takes as a VM's
// machine at a time (run_alive for whatif, run_placements for lpbound)
// follows its heal moves: after its failure a healed VM is on its new
// machine, a VM that could not be healed is on none.
func TestStaysFollowMoves(t *testing.T) {
	ctx := context.Background()
	db := testkit.AvailDB(t)
	res, err := analysis.Run(ctx, db, availSpec("protean"), analysis.RunOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	end := map[int64]float64{}
	for _, v := range res.Trace.VMs {
		end[v.ID] = v.End
	}
	alive := func(at float64) map[int64]int32 {
		out := map[int64]int32{}
		rows, err := db.SQL().QueryContext(ctx, store.MustQuery("run_alive"), res.Summary.RunID, at)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var vm int64
			var m int32
			rows.Scan(&vm, &m)
			out[vm] = m
		}
		return out
	}
	healed, lost := 0, 0
	for _, mv := range res.Moves {
		at := mv.T + 1
		if mv.To >= 0 {
			at = mv.Placed + 1
		}
		if end[mv.VM] <= at || healed >= 20 && lost >= 20 {
			continue
		}
		later := false // a later move of the same VM before at
		for _, o := range res.Moves {
			if o.VM == mv.VM && o.Seq > mv.Seq && o.T <= at {
				later = true
			}
		}
		if later {
			continue
		}
		m, ok := alive(at)[mv.VM]
		switch {
		case mv.To >= 0 && (!ok || m != mv.To):
			t.Fatalf("VM %d healed to machine %d at %v: run_alive says %v (%v)", mv.VM, mv.To, mv.Placed, m, ok)
		case mv.To < 0 && ok:
			t.Fatalf("VM %d not healed at %v: run_alive still has it on machine %d", mv.VM, mv.T, m)
		case mv.To >= 0:
			healed++
		default:
			lost++
		}
	}
	if healed == 0 || lost == 0 {
		t.Fatalf("checked %d healed and %d lost VMs: the run proves nothing", healed, lost)
	}
}

// TestHealFailuresHaveReasons is issue 52's "a failed heal has no
// reason": on a zone loaded so full that some heals find no machine, every
// healing failure stored in vm_move, for one agent and for agents in
// simulated time, names the rule that refused it, a rule of the engine's
// (a rejection reason as placement.reason gives one); landed heals name
// none.
func TestHealFailuresHaveReasons(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs, cfg.Load = 120, 3000, 2, 0, 0.95
	if err := synth.Ingest(ctx, db, "s", "test", cfg); err != nil {
		t.Fatal(err)
	}
	for _, agents := range []int{0, 3} {
		spec := availSpec("protean")
		spec.Failures = "machine-afr=200,rack-afr=40,reboot-share=0"
		if agents > 0 {
			spec = spec.WithAgents(agents, "sim")
		}
		res, err := analysis.Run(ctx, db, spec, analysis.RunOptions{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.HealFailedVMs == 0 {
			t.Fatalf("agents %d: no healing failure (%d heal VMs): the test wants some", agents, res.Summary.HealVMs)
		}
		var failed, unnamed, named int
		err = db.SQL().QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE machine_id IS NULL),
			count(*) FILTER (WHERE machine_id IS NULL AND (failed_rule IS NULL OR failed_rule = '')),
			count(*) FILTER (WHERE machine_id IS NOT NULL AND failed_rule IS NOT NULL)
			FROM vm_move WHERE run_id = ?`, res.Summary.RunID).Scan(&failed, &unnamed, &named)
		if err != nil {
			t.Fatal(err)
		}
		if failed != res.Summary.HealFailedVMs || unnamed != 0 || named != 0 {
			t.Errorf("agents %d: %d healing failures stored (summary %d), %d without a rule, %d landed heals with one",
				agents, failed, res.Summary.HealFailedVMs, unnamed, named)
		}
	}
}

// TestMaintenanceBeyondTheWindow: --maintenance default (a round every 30
// days) on a 2-day trace would run no maintenance at all: it is refused in
// one line saying so, while every=12h runs rounds.
func TestMaintenanceBeyondTheWindow(t *testing.T) {
	ctx := context.Background()
	db := testkit.AvailDB(t)
	spec := availSpec("protean")
	spec.Maintenance = "default"
	_, err := analysis.Run(ctx, db, spec, analysis.RunOptions{Version: "test"})
	if err == nil || !strings.Contains(err.Error(), "no maintenance would run") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("maintenance every 30 d on a 2-day trace: %v", err)
	}
	spec.Maintenance = "every=12h"
	res, err := analysis.Run(ctx, db, spec, analysis.RunOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.MaintenanceOutages == 0 {
		t.Error("every=12h on a 2-day trace ran no maintenance")
	}
}
