package fleet

import (
	"context"
	"encoding/csv"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

func awsTypes(t testing.TB) []Type {
	f, err := os.Open("../../../shared/data/catalogs/aws-ec2-us-east-1.csv")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	rows, _ := csv.NewReader(f).ReadAll()
	var out []Type
	for _, r := range rows[1:] {
		v, _ := strconv.ParseFloat(r[2], 64)
		m, _ := strconv.ParseFloat(r[3], 64)
		g, _ := strconv.ParseFloat(r[4], 64)
		pr, _ := strconv.ParseFloat(r[6], 64)
		if r[5] != "amd64" {
			continue
		}
		out = append(out, Type{Name: r[0], Cap: []float64{v, m / 1024, g, 110}, Price: pr})
	}
	return out
}

func TestTry(t *testing.T) {
	if os.Getenv("FLEET_TRY") == "" {
		t.Skip()
	}
	types := awsTypes(t)
	rng := rand.New(rand.NewPCG(1, 2))
	p := &Problem{Dims: []string{"cpu", "memory", "gpu", "pods"}, Types: types}
	n := 0
	for i := 0; n < 10000; i++ {
		c := []float64{0.1, 0.25, 0.5, 1, 2, 4}[rng.IntN(6)]
		m := c * []float64{1, 2, 4, 8}[rng.IntN(4)] * (0.5 + rng.Float64())
		cnt := 1 + rng.IntN(100)
		g := 0.0
		if rng.IntN(40) == 0 {
			g = 1
			cnt = 1 + rng.IntN(8)
		}
		p.Groups = append(p.Groups, Group{Name: "g" + strconv.Itoa(i), Demand: []float64{c, m, g, 1}, Count: cnt, AntiKey: -1})
		n += cnt
	}
	t.Logf("%d groups, %d pods, %d types", len(p.Groups), n, len(types))
	r, err := Solve(context.Background(), p, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("lb %.2f (lp %.2f vol %.2f) plan %.2f (%s, %d nodes) gap %.2f%% karp %.2f best %.2f (%s) usable %d dominated %d conv %v stop %s it %d cols %d %.1fs karp %.2fs",
		r.LowerBound, r.LPBound, r.VolumeBound, r.Plan.Cost, r.Source, len(r.Plan.Nodes), r.GapPct, r.Karpenter.Cost, r.BestSingle.Cost, r.BestSingleType, r.TypesUsable, r.TypesDominated, r.Converged, r.Stop, r.Iterations, r.Columns, r.Seconds, r.KarpenterSeconds)
}
