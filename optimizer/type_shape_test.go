package optimizer

import "testing"

// TestTypesOfOneShapeShare: a zone whose catalog has two types of one
// shape (the same demand on every SKU, the same SKUs; like Azure's A8 and
// A10, which differ in a network the model does not have). With the
// default rules, all reading types by shape, the cached engine keeps one
// evaluation for both — fewer evaluations than the types requested — and
// decides exactly as the uncached engine and as a cached engine that may
// not share (a rule that reads the type otherwise); invariants hold after
// every request.
func TestTypesOfOneShapeShare(t *testing.T) {
	zone := zoneSpec{clusters: 4, racks: 3, perRack: 6, skus: []SKU{skuSmall, skuLarge}}
	build := func() *Inventory {
		types := testTypes(zone.skus)
		twin := types[3] // D8
		twin.Name = "D8-twin"
		twin.Demand, twin.Supported = append([]Vec(nil), twin.Demand...), append([]bool(nil), twin.Supported...)
		return buildZoneTypes(t, zone, append(types, twin))
	}
	inv := build()
	if got := typeShapes(inv); got[len(got)-1] != 3 || got[3] != 3 || got[4] != 4 {
		t.Fatalf("type shapes %v: want the twin (last) mapped to type 3 and the others to themselves", got)
	}
	reqs := randomRequests(inv, 3000, 29)
	used := map[int32]bool{}
	for _, r := range reqs {
		for _, v := range r.VMs {
			used[v.Type] = true
		}
	}
	if !used[3] || !used[int32(len(inv.Types)-1)] {
		t.Fatal("the workload must request both types of the shape")
	}
	// A rule that reads the type by index, not by shape: sharing is off.
	byIndex := DefaultRules()
	byIndex.Validators = append(byIndex.Validators, r2{})
	if def := DefaultRules(); byIndex.typeByShape() || !def.typeByShape() {
		t.Fatal("typeByShape: the default rules read types by shape, a rule without TypeByShape does not")
	}
	arms := []struct {
		name   string
		cache  bool
		rules  Rules
		shares bool
	}{
		{"cache=on", true, DefaultRules(), true},
		{"cache=off", false, DefaultRules(), false},
		{"cache=on, a rule by index", true, byIndex, false},
		{"cache=off, a rule by index", false, byIndex, false},
	}
	var first []string
	for _, arm := range arms {
		cfg := DefaultConfig()
		cfg.Cache = arm.cache
		p, err := NewProtean(NewState(build()), cfg, arm.rules)
		if err != nil {
			t.Fatal(err)
		}
		if (p.shapeOf != nil) != arm.shares {
			t.Fatalf("%s: sharing by shape %v, want %v", arm.name, p.shapeOf != nil, arm.shares)
		}
		log, _ := sameDecisionsLog(t, p, reqs, arm.cache)
		if arm.cache {
			// Every evaluation stays in the pool (the default pool and age
			// hold them all): one per trait vector requested, where
			// sharing counts the types of one shape as one.
			raw, canon := map[Traits]bool{}, map[Traits]bool{}
			shape := typeShapes(inv)
			for _, r := range reqs {
				for _, v := range r.VMs {
					tr := r.traits(v).project(p.evalTraits)
					raw[tr] = true
					tr[TraitType] = shape[tr[TraitType]]
					canon[tr] = true
				}
			}
			want := len(raw)
			if arm.shares {
				want = len(canon)
			}
			if n := p.evalPool.len(); n != want || len(canon) >= len(raw) {
				t.Fatalf("%s: %d evaluations, want %d (%d trait vectors requested, %d by shape)", arm.name, n, want, len(raw), len(canon))
			}
		}
		if first == nil {
			first = log
			continue
		}
		for i := range log {
			if log[i] != first[i] {
				t.Fatalf("%s: decision %d is %q, %s made %q", arm.name, i, log[i], arms[0].name, first[i])
			}
		}
	}
}
