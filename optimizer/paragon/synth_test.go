package paragon

import (
	"reflect"
	"testing"
)

func TestSynthesizeSeeded(t *testing.T) {
	o := SynthOptions{Apps: 120, Density: 0.3, Dense: 20, Noise: 0.05, MeasureNoise: 0.02, Seed: 42}
	a, err := Synthesize(o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Synthesize(o)
	if !reflect.DeepEqual(a.Perf.Entries(), b.Perf.Entries()) || !reflect.DeepEqual(a.Caused.Entries(), b.Caused.Entries()) ||
		!reflect.DeepEqual(a.Apps, b.Apps) {
		t.Fatal("same seed, different data")
	}
	o.Seed = 43
	c, _ := Synthesize(o)
	if reflect.DeepEqual(a.Apps, c.Apps) {
		t.Fatal("different seeds, same data")
	}
	if _, cols := a.Tolerated.Dims(); cols != DefaultSoIs {
		t.Errorf("%d SoIs, want %d", cols, DefaultSoIs)
	}
	for i, app := range a.Apps {
		if mx := maxOf(app.Perf); mx != 1 {
			t.Fatalf("app %d: best score %v, want 1", i, mx)
		}
		for s := range app.Tolerated {
			if t0, c0 := app.Tolerated[s], app.Caused[s]; t0 < 0 || t0 > 1 || c0 < 0 || c0 > 1 {
				t.Fatalf("app %d SoI %d: scores %v, %v outside [0, 1]", i, s, t0, c0)
			}
		}
	}
	// Dense rows are observed fully, the rest at about the density.
	for j := 0; j < DefaultConfigs; j++ {
		if _, ok := a.Perf.At(19, j); !ok {
			t.Fatalf("dense row 19 lacks column %d", j)
		}
	}
	want := (20*14 + 100*14*0.3) / (120 * 14)
	if d := a.Perf.Density(); d < want-0.05 || d > want+0.05 {
		t.Errorf("density %.3f, want about %.3f", d, want)
	}
}
