package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	store "placelab/sql"
)

// gangZone writes three 10-core machines (racks A, B, C) and five 8-core
// VMs, all alive until t = 1000: VM 0 (tenant x) arrives at t = 0 and takes
// a machine; at t = 1 tenant g asks for VMs 1–4 in one request. Worked out
// by hand: ORDER keeps request order (one size); VMs 1 and 2 take the two
// empty machines, VM 3 finds every machine 2 cores free
// (AreNodeResourcesValid, short of cores on 3 machines), so the request is
// rejected: VMs 1 and 2 rolled back, VM 4 never tried.
func gangZone(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Ingest(ctx, store.IngestInfo{Dataset: "gang", Format: "test", Source: "test"}, func(w *store.Writer) error {
		if err := w.Append("sku", "s10", 1, 10.0, 64.0, 0.0, 0.0, 0.0, 0.0, nil); err != nil {
			return err
		}
		for i, name := range []string{"A", "B", "C"} {
			if err := w.Append("machine", int32(i), name, "z", "dc", "c1", "r"+name, int16(0), "s10", "healthy"); err != nil {
				return err
			}
		}
		if err := w.Append("vm_type", "c8", nil, 8.0, 8.0, nil, nil, nil, nil); err != nil {
			return err
		}
		for i, tenant := range []string{"x", "g", "g", "g", "g"} {
			at := 1.0
			if i == 0 {
				at = 0
			}
			if err := w.Append("vm", int64(i), "v"+string(rune('0'+i)), tenant, nil, "c8", int16(0), at, 1000.0, nil, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		return w.Exec(store.MustQuery("derive_type_demand"), w.Dataset(), w.LoadID())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExplainGangRejection is issue 32 item 6: on a rejected request of
// several VMs, explain on a VM placed before the failure printed
// "rejected (AreNodeResourcesValid)" with its own candidates and best
// machine, never saying it had a machine and was rolled back; on a VM
// never tried it said "no explanation recorded (the run recorded none)",
// which was false. Each VM now tells the request as it happened, in text
// and JSON, with explanations on or off.
func TestExplainGangRejection(t *testing.T) {
	for _, noExplain := range []bool{false, true} {
		name := map[bool]string{false: "explanations on", true: "--no-explain"}[noExplain]
		t.Run(name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "gang.duckdb")
			gangZone(t, db)
			args := []string{"replay", "--dataset", "gang"}
			if noExplain {
				args = append(args, "--no-explain")
			}
			mustRun(t, db, args...)

			// JSON: the same story from every VM of the request.
			var held []int64
			for vm, want := range map[int64]struct {
				role     string
				position int
			}{1: {"rolled_back", 1}, 2: {"rolled_back", 2}, 3: {"failed", 3}, 4: {"not_tried", 4}} {
				var rec explainRecord
				out := mustRun(t, db, "explain", "--run", "1", "--vm", strconv.FormatInt(vm, 10), "--format", "json")
				if err := json.Unmarshal([]byte(out), &rec); err != nil {
					t.Fatalf("VM %d: %v\n%s", vm, err, out)
				}
				g := rec.Gang
				if g == nil {
					t.Fatalf("VM %d: no gang record:\n%s", vm, out)
				}
				if g.Role != want.role || g.Position != want.position || g.VMs != 4 || g.FailedVM != 3 || g.FailedPosition != 3 ||
					g.FailedRule != "AreNodeResourcesValid" || !reflect.DeepEqual(g.NotTried, []int64{4}) || len(g.RolledBack) != 2 ||
					g.RolledBack[0].VM != 1 || g.RolledBack[1].VM != 2 {
					t.Errorf("VM %d: gang = %+v, want role %s at %d of 4, VM 3 failed 3rd by AreNodeResourcesValid, 1 and 2 rolled back, 4 never tried",
						vm, *g, want.role, want.position)
				}
				short := map[string]int{"cores": 3}
				if noExplain {
					short = nil // the short dimension comes from the failed VM's explanation
				}
				if !reflect.DeepEqual(g.FailedShort, short) {
					t.Errorf("VM %d: failed_short = %v, want %v", vm, g.FailedShort, short)
				}
				if want.role == "rolled_back" {
					if g.HeldMachine == nil {
						t.Errorf("VM %d: rolled back without the machine it held", vm)
					} else {
						held = append(held, *g.HeldMachine)
					}
				}
			}
			// The rolled-back VMs held the two machines VM 0 left empty, one each.
			var first explainRecord
			if err := json.Unmarshal([]byte(mustRun(t, db, "explain", "--run", "1", "--vm", "0", "--format", "json")), &first); err != nil {
				t.Fatal(err)
			}
			if first.Gang != nil {
				t.Errorf("VM 0 (placed alone) has a gang record: %+v", *first.Gang)
			}
			if first.Machine == nil || len(held) != 2 || held[0] == held[1] || held[0] == *first.Machine || held[1] == *first.Machine {
				t.Errorf("the rolled-back VMs held machines %v, VM 0 is on %v: want the two others, one each", held, first.Machine)
			}

			// Text.
			for vm, wants := range map[string][]string{
				"1": {"rejected with its request: this VM was placed on machine", "then rolled back when VM v3 of the request found no machine",
					"request 1: 4 VMs, placed all or none", "failed: VM v3, 3rd tried, found no machine: AreNodeResourcesValid emptied its candidate set",
					"placed, then rolled back: 2 VMs (v1 on ", ", v2 on ", "never tried: 1 VMs (v4)"},
				"3": {"rejected (AreNodeResourcesValid)", "this VM is 3rd in the order"},
				"4": {"this VM was never tried (VM v3 of the request found no machine before its turn)", "this VM is 4th in the order"},
			} {
				out := mustRun(t, db, "explain", "--run", "1", "--vm", vm)
				for _, w := range wants {
					if !strings.Contains(out, w) {
						t.Errorf("explain --vm %s lacks %q:\n%s", vm, w, out)
					}
				}
				if vm == "4" && strings.Contains(out, "no explanation recorded") {
					t.Errorf("explain --vm 4 says no explanation was recorded for a VM never tried:\n%s", out)
				}
				if !noExplain && vm == "1" && !strings.Contains(out, "its own machine selection, before the rollback") {
					t.Errorf("explain --vm 1 does not say its record is of the rolled-back placement:\n%s", out)
				}
				if !noExplain && !strings.Contains(out, "short of cores on 3 machines") {
					t.Errorf("explain --vm %s does not name the short dimension:\n%s", vm, out)
				}
			}
		})
	}
}
