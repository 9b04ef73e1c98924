package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// handDataset is the tiny dataset the view tests work out by hand:
//
//	machines: 3 of gen4 (24 cores), 1 of gen5 (40 cores)
//	types:    A 1 core, B 2, C 4, D 16
//	VMs (start, end, tenant): A 0..200 t1, A 0..400 t1, B 10..∞ t2, A 20..3620 t3,
//	          C 30..86430 t4, B 31..100031 t5, A 3600..3650 t6, D -100..∞ t7
func handDataset(t *testing.T, db *DB) {
	t.Helper()
	_, err := db.Ingest(context.Background(), IngestInfo{Dataset: "hand", Format: "test", Source: "hand"}, func(w *Writer) error {
		for _, s := range [][]any{{"g4", 4, 24.0, 192.0}, {"g5", 5, 40.0, 512.0}} {
			if err := w.Append("sku", s[0], s[1], s[2], s[3], 0.0, 0.0, 0.0, 0.0, nil); err != nil {
				return err
			}
		}
		for i, sku := range []string{"g4", "g4", "g4", "g5"} {
			if err := w.Append("machine", int32(i), fmt.Sprint("m", i), "z", "d", "c-"+sku, "r", int16(0), sku, "healthy"); err != nil {
				return err
			}
		}
		for _, ty := range [][]any{{"A", 1.0}, {"B", 2.0}, {"C", 4.0}, {"D", 16.0}} {
			if err := w.Append("vm_type", ty[0], nil, ty[1], 4.0, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		vms := []struct {
			typ, tenant string
			start       float64
			end         any
		}{
			{"A", "t1", 0, 200.0}, {"A", "t1", 0, 400.0}, {"B", "t2", 10, nil}, {"A", "t3", 20, 3620.0},
			{"C", "t4", 30, 86430.0}, {"B", "t5", 31, 100031.0}, {"A", "t6", 3600, 3650.0}, {"D", "t7", -100, nil},
		}
		for i, v := range vms {
			if err := w.Append("vm", int64(i), fmt.Sprint("v", i), v.tenant, nil, v.typ, int16(0), v.start, v.end, nil, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// viewRows returns a view's rows for the hand dataset as strings of the
// given columns.
func viewRows(t *testing.T, db *DB, view string, cols ...string) []string {
	t.Helper()
	res, err := db.QueryView(context.Background(), view, "hand")
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, len(cols))
	for i, c := range cols {
		idx[i] = -1
		for j, rc := range res.Columns {
			if rc == c {
				idx[i] = j
			}
		}
		if idx[i] < 0 {
			t.Fatalf("view %s has no column %s (has %v)", view, c, res.Columns)
		}
	}
	var out []string
	for _, r := range res.Rows {
		s := ""
		for i, j := range idx {
			if i > 0 {
				s += " "
			}
			s += fmt.Sprint(r[j])
		}
		out = append(out, s)
	}
	return out
}

func TestProteanViewsByHand(t *testing.T) {
	db := openMem(t)
	handDataset(t, db)
	cases := []struct {
		view string
		cols []string
		want []string
	}{
		// Table 1: 3 gen4 machines of 24 cores, 1 gen5 of 40.
		{"inventory_by_generation", []string{"generation", "cores_per_machine", "machines", "pct_machines"},
			[]string{"4 24 3 75", "5 40 1 25"}},
		// Table 2: A 4 of 8 VMs, B 2, C 1, D 1.
		{"vm_type_share", []string{"vm_type", "vms", "pct", "below_2pct"},
			[]string{"A 4 50 false", "B 2 25 false", "C 1 12.5 false", "D 1 12.5 false"}},
		// Table 3: cores 1 (A ×4), 2 (B ×2), 4 (C), 16 → ≥10 (D).
		{"cores_mix", []string{"cores", "vms", "pct"},
			[]string{"1 4 50", "2 2 25", "4 1 12.5", ">=10 1 12.5"}},
		// Fig 2: arrivals A A B A C B A: distances 0 (2nd A), 1 (3rd A: B
		// between), 2 (2nd B: A, C between), 2 (4th A: C, B between).
		{"reuse_distance", []string{"distance", "requests", "pct", "cdf_pct"},
			[]string{"0 1 25 25", "1 1 25 50", "2 2 50 100"}},
		// Fig 3: one week; hour 0 has 6 arrivals, hour 1 has 1.
		{"requests_by_hour_of_week", []string{"hour_of_week", "weeks", "mean_requests", "std_requests"},
			[]string{"0 1 6 0", "1 1 1 0"}},
		// Fig 4: second 0 has 2 arrivals, the rest 1.
		{"max_requests_per_second", []string{"interval_start_s", "max_requests_per_s", "requests"},
			[]string{"0 2 6", "3600 1 1"}},
		// §2.2: requests (tenant, start): t1@0 has 2 VMs, five have 1.
		{"tenant_size", []string{"size", "requests", "pct", "cdf_pct"},
			[]string{"1 5 83.333 83.333", "2 1 16.667 100"}},
	}
	for _, tc := range cases {
		got := viewRows(t, db, tc.view, tc.cols...)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s:\n got  %q\n want %q", tc.view, got, tc.want)
		}
	}
	// Fig 5: completed lifetimes 200, 400, 3600, 86400, 100000, 50 s; 2 censored.
	got := viewRows(t, db, "lifetime_cdf", "label", "cdf_pct", "completed_vms", "censored_vms")
	want := map[string]string{"5m": "5m 33.333 6 2", "10m": "10m 50 6 2", "1h": "1h 66.667 6 2", "1d": "1d 83.333 6 2", "2d": "2d 100 6 2"}
	found := 0
	for _, row := range got {
		for label, w := range want {
			if len(row) > len(label) && row[:len(label)+1] == label+" " {
				found++
				if row != w {
					t.Errorf("lifetime_cdf %s: got %q, want %q", label, row, w)
				}
			}
		}
	}
	if found != len(want) {
		t.Fatalf("lifetime_cdf rows %q", got)
	}
}

// TestQueryViewPerDataset: every view filters to one dataset (placelab
// report --dataset D reads them so) or says clearly that it is not per
// dataset; violation_results and paragon_results broke report --dataset.
func TestQueryViewPerDataset(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, v := range ViewNames() {
		_, err := db.QueryView(ctx, v, "some-dataset")
		switch {
		case v == "experiment_results":
			if !errors.Is(err, ErrNoDatasetColumn) {
				t.Errorf("%s: %v, want ErrNoDatasetColumn", v, err)
			}
		case err != nil:
			t.Errorf("%s filtered to a dataset: %v", v, err)
		}
	}
}
