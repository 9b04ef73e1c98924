package paragon

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
)

func envf(k string, d float64) float64 {
	if v := os.Getenv(k); v != "" {
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	return d
}

func TestProbeTmp(t *testing.T) {
	platformGenLow = envf("GL", platformGenLow)
	platformKappa = envf("K", platformKappa)
	platformResidual = envf("R", platformResidual)
	platformIrregular = envf("IRR", platformIrregular)
	platformIrregularScale = envf("IRRS", platformIrregularScale)
	DefaultPlatformNoise = envf("PN", DefaultPlatformNoise)
	DefaultPlatformMeasureNoise = envf("PM", DefaultPlatformMeasureNoise)
	sc := os.Getenv("SC")
	var got [5][]float64
	for seed := uint64(1); seed <= 5; seed++ {
		cfg, _ := Scenario(sc)
		cfg.Apps, cfg.Burst, cfg.Seed = 600, 0, seed
		w, err := prepare(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range table1 {
			got[i] = append(got[i], f.measured(w.class.Heterogeneity))
		}
		got[4] = append(got[4], w.usable/float64(w.cores))
	}
	out := ""
	for i := range got {
		sort.Float64s(got[i])
		out += fmt.Sprintf("%.3f [%.2f,%.2f] ", got[i][2], got[i][0], got[i][4])
	}
	fmt.Println("RESULT", out)
}
