package exact

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"placelab/datasets"
	"placelab/internal/shareddata"
	"placelab/optimizer/cbc"
	"placelab/optimizer/lpbound"
)

func TestDbg2(t *testing.T) {
	dir := shareddata.Path(t, "binpacking")
	in, _ := datasets.ReadInstance(filepath.Join(dir, os.Getenv("INST")))
	counts := make([]int, len(in.Counts))
	for i, c := range in.Counts {
		counts[i] = int(c)
	}
	p := lpbound.NewBinPacking(in.Capacity, in.Sizes, counts)
	from, _ := strconv.Atoi(os.Getenv("FROM"))
	to, _ := strconv.Atoi(os.Getenv("TO"))
	step, _ := strconv.Atoi(os.Getenv("STEP"))
	for ms := from; ms <= to; ms += step {
		fmt.Printf("limit %dms ... ", ms)
		r, err := Solve(context.Background(), p, lpbound.MinCount, cbc.Options{TimeLimit: time.Duration(ms) * time.Millisecond})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%g proven=%v %.2fs\n", r.Opt, r.Proven, r.Seconds)
	}
}
