package experiments

import (
	"context"
	"placelab/analysis/replay"
	"testing"

	"placelab/analysis"
	"placelab/optimizer"
)

// TestAgentsExperimentAvoids reproduces defect 3 of issue 13: the
// experiments behind Protean Table 5's conflicts and Figs 13–15 set Avoid
// but left the window and N0 at 0, so no conflict was ever recorded and
// avoidance never triggered; they also used 3 retries (the paper: 20). The
// quick agents point with 4 agents must now record conflicts and avoidance
// activations, and the spec the experiments start from must carry the
// paper's settings (§6.2).
func TestAgentsExperimentAvoids(t *testing.T) {
	a := analysis.DefaultSpec("zone").WithAgents(4, replay.TimeSim).Agents
	if a.MaxRetries != 20 || a.Window != 50 || a.N0 != 100 || !a.Avoid || a.HitRate != 0.9 || a.HitMS != 14 || a.MissMS != 88 {
		t.Fatalf("agent defaults are not Protean §6.2's: %+v", *a)
	}
	if optimizer.DefaultMaxRetries != 20 || optimizer.DefaultWindow != 50 || optimizer.DefaultN0 != 100 {
		t.Fatal("the named constants moved off §6.2's values")
	}
	e, err := Lookup("agents")
	if err != nil {
		t.Fatal(err)
	}
	var four *Point
	for _, p := range e.Points(true) {
		if p.Params["agents"] == 4 {
			p := p
			four = &p
		}
	}
	if four == nil {
		t.Fatal("the quick agents grid has no 4-agent point")
	}
	figs, err := e.Run(context.Background(), nil, *four, true)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range figs {
		got[f.Metric] = f.Value
	}
	if got["conflicts"] == 0 || got["avoidance_activations"] == 0 {
		t.Fatalf("4 agents at 10x: conflicts %v, avoidance activations %v — conflict avoidance is off", got["conflicts"], got["avoidance_activations"])
	}
}
