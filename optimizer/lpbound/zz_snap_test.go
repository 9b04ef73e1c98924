package lpbound

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"
)

func TestZZSnap(t *testing.T) {
	path := os.Getenv("SNAP")
	if path == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(path)
	var p Problem
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	var inc []Pattern
	if f := os.Getenv("INC"); f != "" {
		b, _ := os.ReadFile(f)
		json.Unmarshal(b, &inc)
	}
	var prev []Pattern
	if f := os.Getenv("PREV"); f != "" {
		b, _ := os.ReadFile(f)
		json.Unmarshal(b, &prev)
	}
	for _, obj := range []Objective{MinCount, MinCost} {
		r, err := Solve(context.Background(), &p, Options{Objective: obj, TimeLimit: 30 * time.Second, Incumbent: inc, Initial: prev})
		t.Logf("obj %d: err %v lp %.3f lower %.3f bound %.0f upper %.0f (%s, proven %v) it %d cols %d %.3fs %s", obj, err, r.LP, r.LowerLP, r.Bound, r.Upper, r.UpperSource, r.IntegerProven, r.Iterations, r.Columns, r.Seconds, r.Stop)
	}
}
