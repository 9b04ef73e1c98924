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
	var ps []*Problem
	if err := json.Unmarshal(b, &ps); err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		for _, obj := range []Objective{MinCost, MinCount} {
			r, err := Solve(context.Background(), p, Options{Objective: obj, TimeLimit: 20 * time.Second})
			t.Logf("snap %d obj %d: err %v lp %.3f lower %.3f bound %.0f upper %.0f it %d cols %d %.3fs %s", i, obj, err, r.LP, r.LowerLP, r.Bound, r.Upper, r.Iterations, r.Columns, r.Seconds, r.Stop)
		}
	}
}
