package optimizer

import (
	"encoding/json"
	"reflect"
	"testing"
)

// explainedDecisions replays requests on a small zone, full enough that
// some fail and some place by eviction, with explanations on, through
// Protean and a baseline; it returns the explanations.
func explainedDecisions(t testing.TB) (*Inventory, []Explanation) {
	t.Helper()
	z := zoneSpec{clusters: 3, racks: 4, perRack: 5, skus: []SKU{skuSmall, skuLarge}}
	inv := buildZone(t, z)
	reqs := randomRequests(inv, 600, 3)
	for i, r := range reqs {
		if i%3 == 0 {
			r.Priority = 1 // low priority: evictable
		}
	}
	var out []Explanation
	for _, engine := range []string{"protean", "bestfit"} {
		cfg := DefaultConfig()
		var a Allocator
		var err error
		if engine == "protean" {
			a, err = NewProtean(NewState(inv), cfg, DefaultRules())
		} else {
			a, err = NewBaseline(BestFitP, NewState(inv), cfg, DefaultRules())
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range reqs {
			out = append(out, a.Allocate(r).Explain...)
		}
	}
	return inv, out
}

// TestExplainRowJSON: the stored row's hand-written encoders write what
// encoding/json writes for the same values, and the documents decode back
// to the same row — for every explanation of a replay with placements,
// failures, evictions and a baseline, and for names JSON must escape.
func TestExplainRowJSON(t *testing.T) {
	inv, exs := explainedDecisions(t)
	ids := make([]int32, len(inv.Machines))
	for i := range ids {
		ids[i] = int32(1000 + 7*i)
	}
	kinds := map[string]bool{}
	check := func(ex *Explanation, inv *Inventory) {
		t.Helper()
		r := ex.Row(inv, ids)
		kinds[r.Machine.Top.PickOf()] = true
		if r.Machine.FailedRule != "" || r.Cluster.FailedRule != "" {
			kinds["failed"] = true
		}
		if len(r.Machine.Rejected.Short) > 0 {
			kinds["short"] = true
		}
		for _, d := range []struct {
			name string
			v    any // a pointer to the document
			hand []byte
			into any // a pointer to a zero document to decode into
		}{
			{"cluster rejected", &r.Cluster.Rejected, r.Cluster.Rejected.AppendJSON(nil), new(RuleCounts)},
			{"cluster top", &r.Cluster.Top, r.Cluster.Top.AppendJSON(nil), new(ClusterTop)},
			{"machine rejected", &r.Machine.Rejected, r.Machine.Rejected.AppendJSON(nil), new(MachineCounts)},
			{"machine top", &r.Machine.Top, r.Machine.Top.AppendJSON(nil), new(MachineTop)},
		} {
			want, err := json.Marshal(d.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(d.hand) != string(want) {
				t.Fatalf("VM %d %s:\n hand: %s\n json: %s", ex.VM, d.name, d.hand, want)
			}
			if err := json.Unmarshal(d.hand, d.into); err != nil {
				t.Fatalf("VM %d %s: %v", ex.VM, d.name, err)
			}
			got := reflect.ValueOf(d.into).Elem().Interface()
			orig := reflect.ValueOf(d.v).Elem().Interface()
			if !reflect.DeepEqual(normalize(got), normalize(orig)) {
				t.Fatalf("VM %d %s does not decode back:\n got  %#v\n want %#v", ex.VM, d.name, got, orig)
			}
		}
	}
	for i := range exs {
		check(&exs[i], inv)
	}
	for _, k := range []string{PickBest, PickEviction, string(BestFitP), "failed", "short"} {
		if !kinds[k] {
			t.Errorf("no explanation of kind %q among %d: the test does not exercise it (%v)", k, len(exs), kinds)
		}
	}
	// Names encoding/json escapes, and a top list longer than DefaultTopK.
	odd := *inv
	odd.Machines = append([]Machine(nil), inv.Machines...)
	odd.Clusters = append([]Cluster(nil), inv.Clusters...)
	odd.Machines[0].Name, odd.Machines[1].Name = `a"b\c<d>&é`, "tab\there\u2028"
	odd.Clusters[0].Name = "<east & \"west\">"
	ex := Explanation{VM: 9, Chosen: 1, Clusters: 3, Machines: 2, Selected: []int32{0, 1},
		Pick: "odd \"pick\"", RuleOrder: []string{"R1", "R2"}, Short: []DimCount{{Cores, 2}, {Pods, 1}},
		ClusterRejected: []RuleCount{{"C", 1}}, Rejected: []RuleCount{{"M", 2}}, AfterPrefs: []RuleCount{{"R1", 1}}}
	for i := range DefaultTopK + 2 {
		ex.Top = append(ex.Top, Scored{Machine: int32(i % 2), Scores: []RuleScore{{"R1", int64(-i)}, {"R2", 1 << 40}}})
	}
	check(&ex, &odd)
	check(&Explanation{VM: 10, Chosen: -1}, inv)
}

// normalize maps empty slices to nil for comparing a row with its decoded
// copy (encoding/json decodes [] into an empty slice, {} into none).
func normalize(v any) any {
	switch x := v.(type) {
	case RuleCounts:
		if len(x) == 0 {
			return RuleCounts(nil)
		}
	case MachineCounts:
		x.Rejected, _ = normalize(x.Rejected).(RuleCounts)
		x.LeftAfter, _ = normalize(x.LeftAfter).(RuleCounts)
		if len(x.Short) == 0 {
			x.Short = nil
		}
		return x
	}
	return v
}

// TestExplainRowOldScores: a top machine stored before rule names were
// stored holds bare numbers; they decode with empty rule names.
func TestExplainRowOldScores(t *testing.T) {
	var mt MachineTop
	if err := json.Unmarshal([]byte(`{"chosen":3,"top":[{"machine_id":3,"name":"m","scores":[0,5]}]}`), &mt); err != nil {
		t.Fatal(err)
	}
	if mt.PickOf() != "" || *mt.Chosen != 3 || len(mt.Top) != 1 || !reflect.DeepEqual(mt.Top[0].Scores, []RuleScore{{"", 0}, {"", 5}}) {
		t.Errorf("%+v", mt)
	}
}

// sinkDoc keeps a benchmark's documents as the store gets them (strings).
var sinkDoc string

// BenchmarkExplainRowJSON times the stored documents of one explanation
// (Row and the four documents), by the row's encoders and by
// encoding/json.
func BenchmarkExplainRowJSON(b *testing.B) {
	inv, exs := explainedDecisions(b)
	ids := make([]int32, len(inv.Machines))
	for i := range ids {
		ids[i] = int32(i)
	}
	b.Run("encoder=hand", func(b *testing.B) {
		var buf []byte
		n := 0
		for i := 0; i < b.N; i++ {
			r := exs[i%len(exs)].Row(inv, ids)
			buf = r.Cluster.Rejected.AppendJSON(buf[:0])
			sinkDoc = string(buf)
			n += len(sinkDoc)
			buf = r.Cluster.Top.AppendJSON(buf[:0])
			sinkDoc = string(buf)
			n += len(sinkDoc)
			buf = r.Machine.Rejected.AppendJSON(buf[:0])
			sinkDoc = string(buf)
			n += len(sinkDoc)
			buf = r.Machine.Top.AppendJSON(buf[:0])
			sinkDoc = string(buf)
			n += len(sinkDoc)
		}
		b.SetBytes(int64(n / max(b.N, 1)))
	})
	b.Run("encoder=encoding-json", func(b *testing.B) {
		n := 0
		for i := 0; i < b.N; i++ {
			r := exs[i%len(exs)].Row(inv, ids)
			for _, v := range []any{&r.Cluster.Rejected, &r.Cluster.Top, &r.Machine.Rejected, &r.Machine.Top} {
				out, err := json.Marshal(v)
				if err != nil {
					b.Fatal(err)
				}
				sinkDoc = string(out)
				n += len(sinkDoc)
			}
		}
		b.SetBytes(int64(n / max(b.N, 1)))
	})
}
