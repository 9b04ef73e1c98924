package exact

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"placelab/datasets"
	"placelab/internal/shareddata"
	"placelab/optimizer/cbc"
	"placelab/optimizer/lpbound"
)

func TestDbg(t *testing.T) {
	dir := shareddata.Path(t, "binpacking")
	opt, _ := datasets.ReadOptima(dir)
	var keys []string
	for k := range opt {
		if strings.Contains(k, os.Getenv("PAT")) && strings.Contains(k, os.Getenv("PAT2")) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) > 400 {
		keys = keys[:400]
	}
	for _, k := range keys {
		in, err := datasets.ReadInstance(filepath.Join(dir, k))
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int, len(in.Counts))
		for i, c := range in.Counts {
			counts[i] = int(c)
		}
		p := lpbound.NewBinPacking(in.Capacity, in.Sizes, counts)
		t0 := time.Now()
		r, err := Solve(context.Background(), p, lpbound.MinCount, cbc.Options{TimeLimit: 2 * time.Second})
		if err != nil {
			t.Log(k, err)
			continue
		}
		fmt.Printf("%s items=%d types=%d opt=%d got=%g proven=%v bound=%.2f cand=%v nodes=%d %.2fs\n", k, in.Items, len(in.Counts), opt[k], r.Opt, r.Proven, r.Bound, r.Candidates, r.Nodes, time.Since(t0).Seconds())
	}
}
