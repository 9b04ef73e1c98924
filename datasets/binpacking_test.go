package datasets

import (
	"context"
	"encoding/csv"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"placelab/internal/shareddata"
)

// countFiles counts files under dir whose names end in ext.
func countFiles(t *testing.T, dir, ext string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ext) {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// readOptimaCSV returns "set/instance" → opt for one set of optima.csv.
func readOptimaCSV(t *testing.T, path, set string) map[string]int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range recs[1:] {
		if r[0] == set {
			v, err := strconv.ParseInt(r[2], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			out[r[0]+"/"+r[1]] = v
		}
	}
	return out
}

// checkSet ingests one set directory of the shared bin packing data and
// checks instance counts, item totals and optima.
func checkSet(t *testing.T, format, set, ext, dims string) {
	dir := shareddata.Path(t, filepath.Join("binpacking", set))
	files := countFiles(t, dir, ext)
	optima := readOptimaCSV(t, filepath.Join(filepath.Dir(dir), "optima.csv"), set)
	db := openDB(t)
	c, err := Ingest(context.Background(), db, format, []string{dir}, Options{Dataset: set})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != files || c.RowsLoaded != files {
		t.Fatalf("counts = %+v, want %d instances", c, files)
	}
	for q, want := range map[string]int64{
		"SELECT count(*) FROM bpp_instance WHERE dataset = $1":                                                                      files,
		"SELECT count(*) FROM bpp_instance WHERE dataset = $1 AND dims IN (" + dims + ")":                                           files,
		"SELECT count(*) FROM bpp_instance WHERE dataset = $1 AND len(capacity) <> dims":                                            0,
		"SELECT count(*) FROM bpp_item JOIN bpp_instance i USING (load_id, instance) WHERE i.dataset = $1 AND len(sizes) <> i.dims": 0,
		"SELECT count(*) FROM bpp_instance WHERE dataset = $1 AND instance NOT LIKE '" + set + "/%'":                                0,
		`SELECT count(*) FROM bpp_instance i JOIN (SELECT instance, sum(count) AS n FROM bpp_item WHERE dataset = $1 GROUP BY instance) s
		 USING (instance) WHERE i.dataset = $1 AND s.n <> i.items`: 0,
		"SELECT count(*) FROM bpp_instance WHERE dataset = $1 AND opt IS NOT NULL": int64(len(optima)),
	} {
		if n := rowCount(t, db, q, set); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
	if len(optima) == 0 {
		t.Fatalf("optima.csv lists nothing for %s", set)
	}
	rows, err := db.SQL().Query("SELECT instance, opt FROM bpp_instance WHERE dataset = $1 AND opt IS NOT NULL", set)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int64{}
	for rows.Next() {
		var name string
		var opt int64
		if err := rows.Scan(&name, &opt); err != nil {
			t.Fatal(err)
		}
		got[name] = opt
	}
	for name, opt := range optima {
		if got[name] != opt {
			t.Errorf("%s: opt = %d, want %d", name, got[name], opt)
		}
	}
}

func TestBPPFalkenauerU(t *testing.T) { checkSet(t, "bpp", "falkenauer_u", ".txt", "1") }

func TestVBPPanigrahy(t *testing.T) { checkSet(t, "vbp", "vbp_panigrahy", ".vbp", "3, 5, 10") }

// TestBPPAllSets parses every one-dimensional instance of the shared data.
func TestBPPAllSets(t *testing.T) {
	dir := shareddata.Path(t, "binpacking")
	db := openDB(t)
	c, err := Ingest(context.Background(), db, "bpp", []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := countFiles(t, dir, ".txt"); c.RowsLoaded != want {
		t.Fatalf("counts = %+v, want %d", c, want)
	}
	// Every proven optimum of a one-dimensional set found its instance.
	var listed int64
	for _, n := range []string{"ai", "ani", "falkenauer_t", "falkenauer_u", "hard28", "scholl_1", "scholl_2", "scholl_3", "schwerin_1", "schwerin_2", "waescher"} {
		listed += int64(len(readOptimaCSV(t, filepath.Join(dir, "optima.csv"), n)))
	}
	if n := rowCount(t, db, "SELECT count(*) FROM bpp_instance WHERE opt IS NOT NULL"); n != listed {
		t.Fatalf("instances with opt = %d, optima.csv lists %d", n, listed)
	}
}

func TestBinPackingNaming(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// No optima.csv: names relative to the given directory.
	write("plain/a.txt", "3\r\n10\r\n5\r\n5\r\n4\r\n")
	write("plain/sub/b.txt", "1 10 10")
	write("plain/notes.md", "ignored")
	// With optima.csv in an ancestor of the set directory.
	write("lib/optima.csv", "set,instance,opt\nmyset,x.txt,2\nmyset,deep/y.vbp,1\nother,x.txt,9\n")
	x := write("lib/myset/x.txt", "3 10 5 5 4")
	write("lib/myset/deep/y.vbp", "2\n10 10\n2\n5 5 1\n5 5 1\n\n")

	names := func(format string, paths ...string) map[string]any {
		t.Helper()
		db := openDB(t)
		if _, err := Ingest(context.Background(), db, format, paths, Options{}); err != nil {
			t.Fatal(err)
		}
		res, err := db.Query(context.Background(), "SELECT instance, opt FROM bpp_instance")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]any{}
		for _, r := range res.Rows {
			out[r[0].(string)] = r[1]
		}
		return out
	}
	check := func(got map[string]any, want map[string]any) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("instances = %v, want %v", got, want)
		}
		for k, v := range want {
			if g, ok := got[k]; !ok || g != v {
				t.Fatalf("instances = %v, want %v", got, want)
			}
		}
	}
	check(names("bpp", filepath.Join(root, "plain")), map[string]any{"a.txt": nil, "sub/b.txt": nil})
	check(names("bpp", filepath.Join(root, "plain", "a.txt")), map[string]any{"a.txt": nil})
	check(names("bpp", filepath.Join(root, "lib", "myset")), map[string]any{"myset/x.txt": int32(2)})
	check(names("bpp", x), map[string]any{"myset/x.txt": int32(2)})
	check(names("vbp", filepath.Join(root, "lib")), map[string]any{"myset/deep/y.vbp": int32(1)})

	// Grouping: equal weights (bpp) and equal size lines (vbp) are one kind.
	db := openDB(t)
	if _, err := Ingest(context.Background(), db, "bpp", []string{x}, Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := db.Query(context.Background(), "SELECT kind, sizes, count FROM bpp_item ORDER BY kind")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Rows[0][2] != int32(2) || res.Rows[1][2] != int32(1) ||
		res.Rows[0][1].([]any)[0] != 5.0 || res.Rows[1][1].([]any)[0] != 4.0 {
		t.Fatalf("items = %v", res.Rows)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM bpp_instance WHERE items = 3 AND capacity = [10.0] AND dims = 1"); n != 1 {
		t.Fatal("instance row wrong")
	}
	db = openDB(t)
	if _, err := Ingest(context.Background(), db, "vbp", []string{filepath.Join(root, "lib", "myset", "deep", "y.vbp")}, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM bpp_item WHERE kind = 0 AND sizes = [5.0, 5.0] AND count = 2"); n != 1 {
		t.Fatal("vbp kinds not merged")
	}
	if n := rowCount(t, db, "SELECT count(*) FROM bpp_instance WHERE items = 2 AND capacity = [10.0, 10.0] AND dims = 2"); n != 1 {
		t.Fatal("vbp instance row wrong")
	}
}

func TestBinPackingBadInput(t *testing.T) {
	cases := []struct {
		name, format, file, body string
		want                     error
		wantIn                   string
	}{
		{"bpp fewer weights", "bpp", "a.txt", "4\r\n10\r\n5\r\n5\r\n4\r\n", ErrMalformed, "row 5: field n"},
		{"bpp more weights", "bpp", "a.txt", "2\r\n10\r\n5\r\n5\r\n4\r\n", ErrMalformed, "row 5: field n"},
		{"bpp weight above capacity", "bpp", "a.txt", "3\n10\n5\n11\n4\n", ErrExceedsCapacity, "row 4: field weight"},
		{"bpp zero weight", "bpp", "a.txt", "3\n10\n5\n0\n4\n", ErrNonPositive, "row 4: field weight"},
		{"bpp negative weight", "bpp", "a.txt", "3\n10\n5\n-2\n4\n", ErrNonPositive, "row 4: field weight"},
		{"bpp non-integer", "bpp", "a.txt", "3\n10\n5\n2.5\n4\n", ErrNotNumber, "row 4: field weight"},
		{"bpp non-integer capacity", "bpp", "a.txt", "3\nten\n5\n2\n4\n", ErrNotNumber, "row 2: field capacity"},
		{"bpp zero n", "bpp", "a.txt", "0\n10\n", ErrNonPositive, "row 1: field n"},
		{"bpp empty", "bpp", "a.txt", "\r\n", ErrMalformed, "field n"},
		{"vbp capacity count", "vbp", "a.vbp", "3\n10 10\n1\n1 1 1 1\n", ErrMalformed, "row 2: field capacity"},
		{"vbp item width", "vbp", "a.vbp", "2\n10 10\n2\n1 1 1\n1 1 1 1\n", ErrMalformed, "row 5: field sizes"},
		{"vbp fewer lines", "vbp", "a.vbp", "2\n10 10\n3\n1 1 1\n2 2 1\n", ErrMalformed, "row 5: field m"},
		{"vbp more lines", "vbp", "a.vbp", "2\n10 10\n1\n1 1 1\n2 2 1\n", ErrMalformed, "row 5: field m"},
		{"vbp size above capacity", "vbp", "a.vbp", "2\n10 8\n1\n1 9 1\n", ErrExceedsCapacity, "row 4: field size[1]"},
		{"vbp negative size", "vbp", "a.vbp", "2\n10 8\n1\n-1 1 1\n", ErrNegative, "row 4: field size[0]"},
		{"vbp zero item", "vbp", "a.vbp", "2\n10 8\n1\n0 0 1\n", ErrNonPositive, "row 4: field sizes"},
		{"vbp zero count", "vbp", "a.vbp", "2\n10 8\n1\n1 1 0\n", ErrNonPositive, "row 4: field count"},
		{"vbp non-integer", "vbp", "a.vbp", "2\n10 8\n1\n1 x 1\n", ErrNotNumber, "row 4: field size[1]"},
		{"vbp d line", "vbp", "a.vbp", "2 3\n10 8\n1\n1 1 1\n", ErrMalformed, "row 1: field d"},
		{"vbp zero capacity", "vbp", "a.vbp", "2\n10 0\n1\n1 0 1\n", ErrNonPositive, "row 2: field capacity"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			p := writeFile(t, tc.file, tc.body)
			_, err := Ingest(context.Background(), db, tc.format, []string{p}, Options{})
			var re *RowError
			if !errors.Is(err, tc.want) || !errors.As(err, &re) || !strings.Contains(err.Error(), tc.wantIn) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v, want %v mentioning %q and the file", err, tc.want, tc.wantIn)
			}
			for _, table := range []string{"bpp_instance", "bpp_item", "dataset"} {
				if n := rowCount(t, db, "SELECT count(*) FROM "+table); n != 0 {
					t.Fatalf("%d %s rows left behind", n, table)
				}
			}
		})
	}
}

func TestBinPackingRejectsAndDuplicates(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.txt": "2 10 5 5", "b.txt": "2 10 5", "c.txt": "1 10 3"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := openDB(t)
	if _, err := Ingest(context.Background(), db, "bpp", []string{dir}, Options{}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v", err)
	}
	c, err := Ingest(context.Background(), db, "bpp", []string{dir}, Options{MaxRejects: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != 3 || c.RowsLoaded != 2 || c.RowsRejected != 1 {
		t.Fatalf("counts = %+v", c)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM bpp_instance"); n != 2 {
		t.Fatalf("instances = %d", n)
	}
	a := filepath.Join(dir, "a.txt")
	if _, err := Ingest(context.Background(), db, "bpp", []string{a, a}, Options{Dataset: "twice"}); !errors.Is(err, ErrDuplicateID) {
		t.Fatalf("same file twice: err = %v", err)
	}
	if _, err := Ingest(context.Background(), db, "vbp", []string{dir}, Options{}); !errors.Is(err, ErrMissingField) {
		t.Fatalf("directory without .vbp files: err = %v", err)
	}
}
