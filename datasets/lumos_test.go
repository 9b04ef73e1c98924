package datasets

import (
	"context"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"placelab/internal/shareddata"
)

const lumosHdr = "provider,sar_interval,vm_type,workload_id,repeat,framework,workload,datasize,completed,elapsed_time_s,input_size_bytes\n"

func TestLumosReal(t *testing.T) {
	p := shareddata.Path(t, "lumos-cloud-perf/lumos_runs.csv")
	// Expected numbers from a plain pass over the file.
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	hdr, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range hdr {
		col[h] = i
	}
	var rows, done int64
	apps, vmTypes, cells := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rows++
		if rec[col["completed"]] != "True" {
			continue
		}
		done++
		platform := rec[col["provider"]] + "/" + rec[col["vm_type"]]
		apps[rec[col["workload_id"]]] = true
		vmTypes[platform] = true
		cells[rec[col["workload_id"]]+"|"+platform] = true
	}

	db := openDB(t)
	c, err := Ingest(context.Background(), db, "lumos", []string{p}, Options{Dataset: "lumos"})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != rows || c.RowsLoaded != done || c.RowsRejected != 0 {
		t.Fatalf("counts = %+v, want read %d, loaded %d", c, rows, done)
	}
	for q, want := range map[string]int64{
		"SELECT count(DISTINCT app) FROM app_score WHERE dataset = 'lumos' AND matrix = 'platform'": int64(len(apps)),
		"SELECT count(DISTINCT col) FROM app_score WHERE dataset = 'lumos' AND matrix = 'platform'": int64(len(vmTypes)),
		"SELECT count(*) FROM app_score WHERE dataset = 'lumos'":                                    int64(len(cells)),
		"SELECT sum(samples) FROM app_score WHERE dataset = 'lumos'":                                done,
		// Every app has exactly one fastest platform, and nothing beats it.
		"SELECT count(*) FROM (SELECT app FROM app_score GROUP BY app HAVING count(*) FILTER (WHERE score = 1.0) <> 1)": 0,
		"SELECT count(*) FROM app_score WHERE score > 1 OR score <= 0":                                                  0,
	} {
		if n := rowCount(t, db, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
	t.Logf("%d runs (%d completed), %d workloads × %d platforms, %d cells", rows, done, len(apps), len(vmTypes), len(cells))
}

func TestLumosMedians(t *testing.T) {
	body := lumosHdr +
		"aws,5s,x,A,1,spark,a,small,True,10,1\n" +
		"aws,5s,x,A,2,spark,a,small,True,30,1\n" +
		"aws,1s,x,A,2,spark,a,small,True,20,1\n" + // same repeat, other sar_interval: a distinct run
		"aws,5s,y,A,1,spark,a,small,True,5,1\n" +
		"aws,5s,y,A,2,spark,a,small,True,7,1\n" +
		"aws,5s,y,A,3,spark,a,small,False,1,1\n" + // incomplete: read, not loaded
		"gcp,5s,y,B,1,spark,b,small,False,,1\n"
	p := writeFile(t, "lumos.csv", body)
	db := openDB(t)
	c, err := Ingest(context.Background(), db, "lumos", []string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != 7 || c.RowsLoaded != 5 || c.RowsRejected != 0 {
		t.Fatalf("counts = %+v", c)
	}
	res, err := db.Query(context.Background(), "SELECT app, col, raw, samples, score FROM app_score ORDER BY app, col")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{"A", "aws/x", 20.0, int32(3), 0.3},
		{"A", "aws/y", 6.0, int32(2), 1.0},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("rows = %v", res.Rows)
	}
	for i, w := range want {
		g := res.Rows[i]
		if g[0] != w[0] || g[1] != w[1] || g[2] != w[2] || g[3] != w[3] || math.Abs(g[4].(float64)-w[4].(float64)) > 1e-12 {
			t.Errorf("row %d = %v, want %v", i, g, w)
		}
	}
}

func TestLumosBadInput(t *testing.T) {
	ok := "aws,5s,x,A,1,spark,a,small,True,10,1\n"
	cases := []struct {
		name, body string
		want       error
		wantIn     string
	}{
		{"non-numeric time", lumosHdr + ok + "aws,5s,x,A,2,spark,a,small,True,fast,1\n", ErrNotNumber, "row 3: field elapsed_time_s"},
		{"zero time", lumosHdr + "aws,5s,x,A,2,spark,a,small,True,0,1\n", ErrNonPositive, "row 2: field elapsed_time_s"},
		{"bad completed", lumosHdr + "aws,5s,x,A,2,spark,a,small,maybe,3,1\n", ErrMalformed, "row 2: field completed"},
		{"empty workload", lumosHdr + "aws,5s,x,,2,spark,a,small,True,3,1\n", ErrMissingField, "row 2: field workload_id"},
		{"duplicate run", lumosHdr + ok + ok, ErrDuplicateID, "row 3: field repeat"},
		{"missing column", "provider,vm_type,workload_id,repeat,completed\naws,x,A,1,True\n", ErrMissingField, "elapsed_time_s"},
		{"short record", lumosHdr + "aws,5s,x,A\n", ErrMissingField, "row 2: field repeat"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			p := writeFile(t, "lumos.csv", tc.body)
			_, err := Ingest(context.Background(), db, "lumos", []string{p}, Options{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantIn) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v, want %v mentioning %q and the file", err, tc.want, tc.wantIn)
			}
			for _, table := range []string{"app_score", "dataset"} {
				if n := rowCount(t, db, "SELECT count(*) FROM "+table); n != 0 {
					t.Fatalf("%d %s rows left behind", n, table)
				}
			}
		})
	}
}

func TestLumosRejects(t *testing.T) {
	body := lumosHdr + "aws,5s,x,A,1,spark,a,small,True,10,1\n" + "aws,5s,x,A,2,spark,a,small,True,-3,1\n"
	p := writeFile(t, "lumos.csv", body)
	db := openDB(t)
	c, err := Ingest(context.Background(), db, "lumos", []string{p}, Options{MaxRejects: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != 2 || c.RowsLoaded != 1 || c.RowsRejected != 1 || c.Rejected["elapsed_time_s: size must be > 0"] != 1 {
		t.Fatalf("counts = %+v", c)
	}
}
