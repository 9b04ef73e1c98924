package datasets

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"placelab/internal/shareddata"
)

// The fixture: three flavors; an interval map with one-value bins 0 and 1,
// bins 2 = 600..900 and 3 = 1200..1500, and the open-ended bin 4 from 1800 s;
// a train split without durations and a dev split censored at 3000 s whose
// batches mix flavors, U and C tokens, a line without arrivals and a repeated
// time.
const (
	flavFixMap      = "1,0.75 a\n2,3.5 g\n8,14 m\n"
	flavFixInterval = "0 0\n300 1\n600 2\n900 2\n1200 3\n1500 3\n"
	flavFixTrain    = "300 a,|,g,m,|\n600 g,|\n"
	flavFixDev      = "600 g,a,g,|,m,|\n900 a,|\n900\n1200 g,m,a,|,a,|\n1650 m,|,a,g,|\n"
	flavFixDevDur   = "600 U2,U0,C4,|,U1,|\n900 U3,|\n900\n1200 C4,U2,U4,|,C4,|\n1650 C3,|,U3,U2,|\n"
	flavFixDevName  = "v1.dev.c3000.txt"
)

// flavorFixture writes the fixture's files (name → content; "" omits a
// file) into a fresh folder and returns it.
func flavorFixture(t testing.TB, override map[string]string) string {
	t.Helper()
	files := map[string]string{
		"flav_map.txt":        flavFixMap,
		"v1.interval_map.txt": flavFixInterval,
		"v1.train.txt":        flavFixTrain,
		"v1.dev.txt":          flavFixDev,
		flavFixDevName:        flavFixDevDur,
		"INPUT.md":            "not an input\n",
		"TRACES_LICENSE.txt":  "not an input\n",
		"batch_size_map.txt":  "1 1\n2 2\n",
	}
	for k, v := range override {
		files[k] = v
	}
	dir := t.TempDir()
	for name, body := range files {
		if body == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// flavorRow is a vm row joined with its type and vm_censor row.
type flavorRow struct {
	id             int64
	name, tenant   string
	vmType         string
	start          float64
	end, observed  sql.NullFloat64
	subscriptionNL bool
}

func flavorRows(t *testing.T, db interface {
	Query(string, ...any) (*sql.Rows, error)
}, dataset string) []flavorRow {
	t.Helper()
	rows, err := db.Query(`SELECT v.vm_id, v.name, v.tenant, v.vm_type, v.start_s, v.end_s, c.observed_s, v.subscription IS NULL
		FROM vm v LEFT JOIN vm_censor c USING (load_id, vm_id)
		WHERE v.dataset = ? AND v.priority = 0 ORDER BY v.vm_id`, dataset)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []flavorRow
	for rows.Next() {
		var r flavorRow
		if err := rows.Scan(&r.id, &r.name, &r.tenant, &r.vmType, &r.start, &r.end, &r.observed, &r.subscriptionNL); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func nf(v float64) sql.NullFloat64 { return sql.NullFloat64{Float64: v, Valid: true} }

var null = sql.NullFloat64{}

// flavorDevWant is the dev split of the fixture, vm_id from first.
//
//	U<k>: end = T + (lo_k + min(hi_k, 3000 - T))/2; C<k>: end NULL, observed 3000.
func flavorDevWant(first int64) []flavorRow {
	rows := []flavorRow{
		{0, "dev-b1-1-1", "dev-b1-1", "g-c2m3.5", 600, nf(600 + 750), null, true},     // U2: (600+900)/2
		{0, "dev-b1-1-2", "dev-b1-1", "a-c1m0.75", 600, nf(600), null, true},          // U0: 0 s
		{0, "dev-b1-1-3", "dev-b1-1", "g-c2m3.5", 600, null, nf(3000), true},          // C4: age 2400 >= 1800
		{0, "dev-b1-2-1", "dev-b1-2", "m-c8m14", 600, nf(600 + 300), null, true},      // U1: 300 s
		{0, "dev-b2-1-1", "dev-b2-1", "a-c1m0.75", 900, nf(900 + 1350), null, true},   // U3: (1200+1500)/2
		{0, "dev-b4-1-1", "dev-b4-1", "g-c2m3.5", 1200, null, nf(3000), true},         // C4: age 1800
		{0, "dev-b4-1-2", "dev-b4-1", "m-c8m14", 1200, nf(1200 + 750), null, true},    // U2
		{0, "dev-b4-1-3", "dev-b4-1", "a-c1m0.75", 1200, nf(1200 + 1800), null, true}, // U4 open, narrowed to 1800..1800
		{0, "dev-b4-2-1", "dev-b4-2", "a-c1m0.75", 1200, null, nf(3000), true},        // C4
		{0, "dev-b5-1-1", "dev-b5-1", "m-c8m14", 1650, null, nf(3000), true},          // C3: age 1350 in [1200, 1800)
		{0, "dev-b5-2-1", "dev-b5-2", "a-c1m0.75", 1650, nf(1650 + 1275), null, true}, // U3 narrowed: (1200+1350)/2
		{0, "dev-b5-2-2", "dev-b5-2", "g-c2m3.5", 1650, nf(1650 + 750), null, true},   // U2
	}
	for i := range rows {
		rows[i].id = first + int64(i)
	}
	return rows
}

// flavorTrainWant: no durations, so end NULL and observed_s = start_s.
var flavorTrainWant = []flavorRow{
	{0, "train-b1-1-1", "train-b1-1", "a-c1m0.75", 300, null, nf(300), true},
	{1, "train-b1-2-1", "train-b1-2", "g-c2m3.5", 300, null, nf(300), true},
	{2, "train-b1-2-2", "train-b1-2", "m-c8m14", 300, null, nf(300), true},
	{3, "train-b2-1-1", "train-b2-1", "g-c2m3.5", 600, null, nf(600), true},
}

func compareFlavorRows(t *testing.T, got, want []flavorRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d VMs, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("vm %d = %+v\n        want %+v", i, got[i], want[i])
		}
	}
}

// TestFlavorFolder: the folder loads train (no durations) then dev (with
// durations), in time order; batches are tenants; C VMs are censored at the
// censor time with a vm_censor row; train VMs only claim their arrival.
func TestFlavorFolder(t *testing.T) {
	dir := flavorFixture(t, nil)
	db := openDB(t)
	c, err := Ingest(context.Background(), db, "azure-flavor", []string{dir}, Options{Dataset: "fl"})
	if err != nil {
		t.Fatal(err)
	}
	// Lines: 2 train + 5 dev.
	if c.RowsRead != 7 || c.RowsLoaded != 7 || c.RowsRejected != 0 {
		t.Fatalf("counts = %+v", c)
	}
	want := append(append([]flavorRow{}, flavorTrainWant...), flavorDevWant(4)...)
	compareFlavorRows(t, flavorRows(t, db.SQL(), "fl"), want)
	checks := []struct {
		q    string
		want int64
	}{
		{"SELECT count(*) FROM vm_type WHERE dataset = 'fl'", 3},
		{"SELECT count(*) FROM vm_type WHERE vm_type = 'm-c8m14' AND cores = 8 AND memory_gb = 14 AND family IS NULL", 1},
		{"SELECT count(*) FROM vm_censor WHERE dataset = 'fl'", 4 + 4},
		// Every VM of a tenant arrives at once: one service request.
		{"SELECT count(*) FROM (SELECT tenant FROM vm WHERE dataset = 'fl' GROUP BY tenant HAVING count(DISTINCT start_s) > 1)", 0},
		{"SELECT count(DISTINCT tenant) FROM vm WHERE dataset = 'fl'", 3 + 7},
		{"SELECT count(*) FROM vm WHERE dataset = 'fl' AND end_s > 3000", 0},
	}
	for _, ck := range checks {
		if got := rowCount(t, db, ck.q); got != ck.want {
			t.Errorf("%s = %d, want %d", ck.q, got, ck.want)
		}
	}
}

// TestFlavorFiles: explicit files load only what is named; the maps come
// from beside the first flavor trace unless given.
func TestFlavorFiles(t *testing.T) {
	dir := flavorFixture(t, nil)
	ctx := context.Background()
	t.Run("dev with durations, maps beside", func(t *testing.T) {
		db := openDB(t)
		if _, err := Ingest(ctx, db, "azure-flavor", []string{filepath.Join(dir, flavFixDevName), filepath.Join(dir, "v1.dev.txt")}, Options{Dataset: "d"}); err != nil {
			t.Fatal(err)
		}
		compareFlavorRows(t, flavorRows(t, db.SQL(), "d"), flavorDevWant(0))
	})
	t.Run("dev without durations", func(t *testing.T) {
		db := openDB(t)
		if _, err := Ingest(ctx, db, "azure-flavor", []string{filepath.Join(dir, "v1.dev.txt")}, Options{Dataset: "d"}); err != nil {
			t.Fatal(err)
		}
		got := flavorRows(t, db.SQL(), "d")
		for i, w := range flavorDevWant(0) {
			w.end, w.observed = null, nf(w.start)
			if got[i] != w {
				t.Errorf("vm %d = %+v, want %+v", i, got[i], w)
			}
		}
	})
	t.Run("maps given from elsewhere", func(t *testing.T) {
		other := t.TempDir()
		tr := filepath.Join(other, "v1.train.txt")
		if err := os.WriteFile(tr, []byte(flavFixTrain), 0o644); err != nil {
			t.Fatal(err)
		}
		db := openDB(t)
		_, err := Ingest(ctx, db, "azure-flavor", []string{tr}, Options{Dataset: "d"})
		if !errors.Is(err, ErrMissingField) || !strings.Contains(err.Error(), "flav_map.txt") {
			t.Fatalf("without maps: err = %v", err)
		}
		if _, err := Ingest(ctx, db, "azure-flavor", []string{filepath.Join(dir, "flav_map.txt"), tr, filepath.Join(dir, "v1.interval_map.txt")}, Options{Dataset: "d"}); err != nil {
			t.Fatal(err)
		}
		compareFlavorRows(t, flavorRows(t, db.SQL(), "d"), flavorTrainWant)
	})
	t.Run("gzip", func(t *testing.T) {
		gz := t.TempDir()
		for name, body := range map[string]string{"flav_map.txt.gz": flavFixMap, "v1.interval_map.txt.gz": flavFixInterval,
			"v1.dev.txt.gz": flavFixDev, flavFixDevName + ".gz": flavFixDevDur} {
			if err := os.WriteFile(filepath.Join(gz, name), gzipBytes(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		db := openDB(t)
		if _, err := Ingest(ctx, db, "azure-flavor", []string{gz}, Options{Dataset: "d"}); err != nil {
			t.Fatal(err)
		}
		compareFlavorRows(t, flavorRows(t, db.SQL(), "d"), flavorDevWant(0))
	})
}

// TestFlavorInventory: the trace has no servers; --inventory gives them and
// every flavor's demand is derived.
func TestFlavorInventory(t *testing.T) {
	db := openDB(t)
	if _, err := Ingest(context.Background(), db, "azure-flavor", []string{flavorFixture(t, nil)}, Options{Dataset: "fl", Inventory: "shape:gen5:4"}); err != nil {
		t.Fatal(err)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM machine WHERE dataset = 'fl'"); n != 4 {
		t.Fatalf("%d machines", n)
	}
	if n := rowCount(t, db, "SELECT count(DISTINCT vm_type) FROM vm_type_demand WHERE dataset = 'fl'"); n != 3 {
		t.Fatalf("%d flavors with a demand, want 3", n)
	}
}

// TestFlavorBadInput: each bad line names the file, the line as row and the
// token as field, and fails the ingest leaving nothing behind.
func TestFlavorBadInput(t *testing.T) {
	dev, dur := "v1.dev.txt", flavFixDevName
	cases := []struct {
		name     string
		override map[string]string
		want     error
		file     string
		wantIn   string
	}{
		{"empty batch", map[string]string{dev: "600 g,|,|\n", dur: ""}, ErrMalformed, dev, "row 1: field token 3: malformed: empty batch"},
		{"line starts with a separator", map[string]string{dev: "600 |,g,|\n", dur: ""}, ErrMalformed, dev, "row 1: field token 1"},
		{"trailing comma", map[string]string{dev: "600 g,|\n900 g,|,\n", dur: ""}, ErrMalformed, dev, "row 2: field token 3: malformed: empty token"},
		{"doubled comma", map[string]string{dev: "600 g,,a,|\n", dur: ""}, ErrMalformed, dev, "row 1: field token 2"},
		{"unclosed batch", map[string]string{dev: "600 g,|,a\n", dur: ""}, ErrMalformed, dev, "row 1: field token 3: malformed: the last batch is not closed"},
		{"unknown flavor", map[string]string{dev: "600 g,|\n900 a,z,|\n", dur: ""}, ErrUnknownType, dev, `row 2: field token 2: unknown VM type: not in the flavor map (value "z")`},
		{"fractional time", map[string]string{dev: "600.5 g,|\n", dur: ""}, ErrNotNumber, dev, "row 1: field time"},
		{"negative time", map[string]string{dev: "-300 g,|\n", dur: ""}, ErrNegative, dev, "row 1: field time"},
		{"huge time", map[string]string{dev: "99999999999 g,|\n", dur: ""}, ErrTimeRange, dev, "row 1: field time"},
		{"time goes back", map[string]string{dev: "600 g,|\n900 g,|\n899 a,|\n", dur: ""}, ErrMalformed, dev, "row 3: field time: malformed: before the previous line's 900"},
		{"split overlaps the previous one", map[string]string{"v1.train.txt": "300 a,|\n700 g,|\n"}, ErrMalformed, dev, "row 1: field time: malformed: before the previous line's 700"},
		{"blank line", map[string]string{dev: "600 g,|\n\n", dur: ""}, ErrNotNumber, dev, "row 2: field time"},
		{"bin beyond the map", map[string]string{dur: strings.Replace(flavFixDevDur, "U0", "U5", 1)}, ErrMalformed, dur, "row 1: field token 2: malformed: bin 5 beyond the interval map"},
		{"U without digits", map[string]string{dur: strings.Replace(flavFixDevDur, "U0", "U", 1)}, ErrMalformed, dur, "row 1: field token 2: malformed: want U<bin> or C<bin>"},
		{"C without digits", map[string]string{dur: strings.Replace(flavFixDevDur, "C4", "C", 1)}, ErrMalformed, dur, "row 1: field token 3"},
		{"signed bin", map[string]string{dur: strings.Replace(flavFixDevDur, "U0", "U+0", 1)}, ErrMalformed, dur, "row 1: field token 2: malformed: the bin index is not a number"},
		{"other letter", map[string]string{dur: strings.Replace(flavFixDevDur, "U0", "X0", 1)}, ErrMalformed, dur, "row 1: field token 2"},
		{"U that cannot have finished", map[string]string{dur: strings.Replace(flavFixDevDur, "C3", "U4", 1)}, ErrMalformed, dur, "row 5: field token 1: malformed: bin 4 starts at 1800 s, but the VM had to finish within 1350 s"},
		{"C whose bin does not hold its age", map[string]string{dur: strings.Replace(flavFixDevDur, "C3", "C2", 1)}, ErrMalformed, dur, "row 5: field token 1: malformed: at the censor time 3000 the VM's age 1350 s is not in bin 2"},
		{"line after the censor time", map[string]string{dev: "3300 g,|\n", dur: "3300 U0,|\n"}, ErrMalformed, dur, "row 1: field time: malformed: after the censor time 3000"},
		// The token-for-token match.
		{"other time", map[string]string{dur: strings.Replace(flavFixDevDur, "900 U3", "1200 U3", 1)}, ErrTraceMismatch, dur, "row 2: field time: duration trace does not match its flavor trace: the flavor line has time 900"},
		{"separator moved", map[string]string{dur: strings.Replace(flavFixDevDur, "U2,U0,C4,|,U1,|", "U2,U0,|,C4,U1,|", 1)}, ErrTraceMismatch, dur, `row 1: field token 3: duration trace does not match its flavor trace: the flavor trace has "g" here (value "|")`},
		{"fewer tokens", map[string]string{dur: strings.Replace(flavFixDevDur, "C4,U2,U4,|,C4,|", "C4,U2,U4,|", 1)}, ErrTraceMismatch, dur, "row 4: field token 5: duration trace does not match its flavor trace: 4 tokens, the flavor line has 6"},
		{"more tokens", map[string]string{dur: strings.Replace(flavFixDevDur, "900 U3,|", "900 U3,|,U1,|", 1)}, ErrTraceMismatch, dur, "row 2: field token 3"},
		{"arrivals in one only", map[string]string{dur: strings.Replace(flavFixDevDur, "\n900\n", "\n900 U0,|\n", 1)}, ErrTraceMismatch, dur, "row 3: field token 1"},
		{"duration trace shorter", map[string]string{dur: strings.TrimSuffix(flavFixDevDur, "1650 C3,|,U3,U2,|\n")}, ErrTraceMismatch, dur, "row 5: duration trace does not match its flavor trace: it ends after 4 lines"},
		{"duration trace longer", map[string]string{dur: flavFixDevDur + "1800 U0,|\n"}, ErrTraceMismatch, dur, "row 6: duration trace does not match its flavor trace: it goes on after"},
		// The maps.
		{"flavor map: no memory", map[string]string{"flav_map.txt": "1 a\n"}, ErrMissingField, "flav_map.txt", "row 1"},
		{"flavor map: zero cores", map[string]string{"flav_map.txt": "1,0.75 a\n0,2 b\n"}, ErrNonPositive, "flav_map.txt", "row 2: field vcpus"},
		{"flavor map: not a number", map[string]string{"flav_map.txt": "1,lots a\n"}, ErrNotNumber, "flav_map.txt", "row 1: field memory"},
		{"flavor map: repeated letter", map[string]string{"flav_map.txt": "1,0.75 a\n2,4 a\n"}, ErrDuplicateID, "flav_map.txt", "row 2: field letter"},
		{"flavor map: not a letter", map[string]string{"flav_map.txt": "1,0.75 7\n"}, ErrMalformed, "flav_map.txt", "row 1: field letter"},
		{"interval map: not from 0", map[string]string{"v1.interval_map.txt": "300 0\n600 1\n"}, ErrMalformed, "v1.interval_map.txt", "row 1"},
		{"interval map: seconds repeat", map[string]string{"v1.interval_map.txt": "0 0\n300 1\n300 1\n"}, ErrMalformed, "v1.interval_map.txt", "row 3: field seconds"},
		{"interval map: bin skipped", map[string]string{"v1.interval_map.txt": "0 0\n300 2\n"}, ErrMalformed, "v1.interval_map.txt", "row 2: field bin"},
		{"interval map: bin goes back", map[string]string{"v1.interval_map.txt": "0 0\n300 1\n600 0\n"}, ErrMalformed, "v1.interval_map.txt", "row 3: field bin"},
		{"interval map: one line", map[string]string{"v1.interval_map.txt": "0 0\n"}, ErrMissingField, "v1.interval_map.txt", "at least two lines"},
		{"no interval map", map[string]string{"v1.interval_map.txt": ""}, ErrMissingField, "v1.interval_map.txt", "not given and not beside"},
		// The files.
		{"duration trace without its flavor trace", map[string]string{"v1.test.c9000.txt": "300 U0,|\n"}, ErrMissingField, "v1.test.c9000.txt", "duration trace without its flavor trace v1.test.txt"},
		{"two duration traces", map[string]string{"v1.dev.c4000.txt": flavFixDevDur}, ErrDuplicateID, "v1.dev.c", "a second duration trace"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := flavorFixture(t, tc.override)
			db := openDB(t)
			_, err := Ingest(context.Background(), db, "azure-flavor", []string{dir}, Options{Dataset: "fl"})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantIn) || !strings.Contains(err.Error(), tc.file) {
				t.Fatalf("err = %v\nwant %v mentioning %q and %s", err, tc.want, tc.wantIn, tc.file)
			}
			var re *RowError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v is not a *RowError", err)
			}
			if n := rowCount(t, db, "SELECT count(*) FROM vm"); n != 0 {
				t.Fatalf("%d VMs left behind", n)
			}
		})
	}
}

// TestFlavorFileArguments: what PATH arguments are refused.
func TestFlavorFileArguments(t *testing.T) {
	dir := flavorFixture(t, nil)
	ctx := context.Background()
	emptyTrace := filepath.Join(dir, "v1.test.txt")
	if err := os.WriteFile(emptyTrace, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		paths  []string
		want   error
		wantIn string
	}{
		{"batch size map", []string{filepath.Join(dir, "batch_size_map.txt"), filepath.Join(dir, "v1.dev.txt")}, ErrMalformed, "batch_size_map.txt is not an input"},
		{"same trace twice", []string{filepath.Join(dir, "v1.dev.txt"), dir}, ErrDuplicateID, "flavor trace given twice"},
		{"folder without traces", []string{t.TempDir()}, ErrMissingField, "no flavor trace"},
		{"only maps", []string{filepath.Join(dir, "flav_map.txt"), filepath.Join(dir, "v1.interval_map.txt")}, ErrMissingField, "no flavor trace among the inputs"},
		{"two folders", []string{dir, flavorFixture(t, nil)}, ErrDuplicateID, "a second flavor map"},
		{"same split from two folders", []string{filepath.Join(dir, "v1.dev.txt"), filepath.Join(flavorFixture(t, nil), "v1.dev.txt")}, ErrDuplicateID, `split "dev" also read from`},
		{"empty flavor trace", []string{emptyTrace}, ErrMissingField, "v1.test.txt: missing field: empty trace"},
		{"a file that is not a trace", []string{filepath.Join(dir, "TRACES_LICENSE.txt")}, ErrNotNumber, "TRACES_LICENSE.txt: row 1: field time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Ingest(ctx, openDB(t), "azure-flavor", tc.paths, Options{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantIn) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.want, tc.wantIn)
			}
		})
	}
}

// TestFlavorMaxRejects: a bad line is skipped whole (none of its VMs load)
// and counted; the time check then compares with the last good line.
func TestFlavorMaxRejects(t *testing.T) {
	dur := strings.Replace(flavFixDevDur, "U2,U0,C4,|,U1,|", "U2,U0,C4,|,U9,|", 1) // line 1: bin 9
	dir := flavorFixture(t, map[string]string{flavFixDevName: dur})
	db := openDB(t)
	_, err := Ingest(context.Background(), db, "azure-flavor", []string{dir}, Options{Dataset: "fl"})
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("without --max-rejects: err = %v", err)
	}
	c, err := Ingest(context.Background(), db, "azure-flavor", []string{dir}, Options{Dataset: "fl", MaxRejects: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != 7 || c.RowsLoaded != 6 || c.RowsRejected != 1 || c.Rejected["token 5: malformed: bin 9 beyond the interval map (bins 0..4, 4 open-ended)"] != 1 {
		t.Fatalf("counts = %+v", c)
	}
	want := append(append([]flavorRow{}, flavorTrainWant...), flavorDevWant(0)[4:]...)
	for i := range want[4:] {
		want[4+i].id = int64(4 + i)
	}
	compareFlavorRows(t, flavorRows(t, db.SQL(), "fl"), want)
}

// TestFlavorReal loads the published train and dev splits and checks them
// against a recount of the files that does not use the loader: VMs per
// split, batches, U and C tokens, each dev VM's lifetime bucket and
// censoring; and that Resource Central's lifetime bucket edges (900, 3600,
// 86400 s; buckets <= 15 min, <= 1 h, <= 1 day, longer) end bins of the
// real interval map, so that no bin straddles a bucket edge.
func TestFlavorReal(t *testing.T) {
	dir := shareddata.Path(t, "azure-v1-flavor")
	// The interval map, read here independently.
	binOf := map[int64]int{}
	var secs []int64
	forLines(t, filepath.Join(dir, "v1.interval_map.txt"), func(_ int, line string) {
		f := strings.Fields(line)
		s, err1 := strconv.ParseInt(f[0], 10, 64)
		b, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			t.Fatalf("interval map line %q", line)
		}
		binOf[s] = b
		secs = append(secs, s)
	})
	rcBucket := func(life float64) int {
		switch {
		case life <= 900:
			return 1
		case life <= 3600:
			return 2
		case life <= 86400:
			return 3
		}
		return 4
	}
	bucketOfBin := map[int]int{}
	for _, s := range secs {
		b, ok := bucketOfBin[binOf[s]]
		if ok && b != rcBucket(float64(s)) {
			t.Fatalf("bin %d straddles a lifetime bucket edge at %d s", binOf[s], s)
		}
		bucketOfBin[binOf[s]] = rcBucket(float64(s))
	}
	for _, edge := range []int64{900, 3600, 86400} {
		if binOf[edge] == binOf[edge+300] {
			t.Fatalf("edge %d s is inside bin %d, not at its end", edge, binOf[edge])
		}
	}
	last := secs[len(secs)-1]
	openBin := binOf[last] + 1
	bucketOfBin[openBin] = rcBucket(float64(last + 300))

	// Recount the traces.
	type want struct {
		bucket   int // 0: censored
		start    float64
		observed float64
	}
	dev := map[string]want{}
	var trainVMs, trainBatches, devBatches, devU, devC int
	forLines(t, filepath.Join(dir, "v1.train.txt"), func(_ int, line string) {
		for _, tok := range strings.Split(strings.SplitN(line, " ", 2)[1], ",") {
			if tok == "|" {
				trainBatches++
			} else {
				trainVMs++
			}
		}
	})
	const censor = 2100000
	forLines(t, filepath.Join(dir, "v1.dev.c2100000.txt"), func(n int, line string) {
		ts, toks, _ := strings.Cut(line, " ")
		start, _ := strconv.ParseFloat(ts, 64)
		b, j := 1, 0
		for _, tok := range strings.Split(toks, ",") {
			if tok == "|" {
				b, j = b+1, 0
				devBatches++
				continue
			}
			j++
			k, err := strconv.Atoi(tok[1:])
			if err != nil || k > openBin {
				t.Fatalf("line %d token %q", n, tok)
			}
			w := want{start: start}
			if tok[0] == 'C' {
				w.observed = censor
				devC++
			} else {
				w.bucket = bucketOfBin[k]
				devU++
			}
			dev[fmt.Sprintf("dev-b%d-%d-%d", n, b, j)] = w
		}
	})
	// The data README: 1.2M + 259k VMs.
	if trainVMs < 1_200_000 || trainVMs >= 1_210_000 || devU+devC < 259_000 || devU+devC >= 260_000 {
		t.Fatalf("recount: %d train VMs, %d dev VMs; the data README says 1.2M + 259k", trainVMs, devU+devC)
	}

	db := openDB(t)
	c, err := Ingest(context.Background(), db, "azure-flavor", []string{dir}, Options{Dataset: "az"})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != 5999+1000 || c.RowsLoaded != 5999+1000 || c.RowsRejected != 0 {
		t.Fatalf("counts = %+v", c)
	}
	checks := []struct {
		q    string
		want int
	}{
		{"SELECT count(*) FROM vm WHERE dataset = 'az'", trainVMs + devU + devC},
		{"SELECT count(*) FROM vm WHERE dataset = 'az' AND name LIKE 'train-%'", trainVMs},
		{"SELECT count(DISTINCT tenant) FROM vm WHERE dataset = 'az'", trainBatches + devBatches},
		{"SELECT max(vm_id) + 1 FROM vm WHERE dataset = 'az'", trainVMs + devU + devC},
		{"SELECT count(*) FROM vm WHERE dataset = 'az' AND (subscription IS NOT NULL OR priority <> 0)", 0},
		{"SELECT count(*) FROM vm WHERE dataset = 'az' AND end_s IS NOT NULL", devU},
		{"SELECT count(*) FROM vm WHERE dataset = 'az' AND end_s > 2100000", 0},
		// Train: unknown lifetimes, seen alive at arrival only.
		{"SELECT count(*) FROM vm v JOIN vm_censor c USING (load_id, vm_id) WHERE v.dataset = 'az' AND v.name LIKE 'train-%' AND c.observed_s = v.start_s AND v.end_s IS NULL", trainVMs},
		{"SELECT count(*) FROM vm_censor WHERE dataset = 'az'", trainVMs + devC},
		{"SELECT count(*) FROM vm_type WHERE dataset = 'az'", 16},
		// Train arrivals fall in (0, 1,800,000) s, dev arrivals after.
		{"SELECT count(*) FROM vm WHERE dataset = 'az' AND name LIKE 'train-%' AND (start_s <= 0 OR start_s >= 1800000)", 0},
		{"SELECT count(*) FROM vm WHERE dataset = 'az' AND name LIKE 'dev-%' AND start_s < 1800000", 0},
	}
	for _, ck := range checks {
		if got := rowCount(t, db, ck.q); got != int64(ck.want) {
			t.Errorf("%s = %d, want %d", ck.q, got, ck.want)
		}
	}
	rows, err := db.SQL().Query(`SELECT v.name, v.start_s, v.end_s - v.start_s, c.observed_s
		FROM vm v LEFT JOIN vm_censor c USING (load_id, vm_id) WHERE v.dataset = 'az' AND v.name LIKE 'dev-%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen, wrong := 0, 0
	for rows.Next() {
		var name string
		var start float64
		var life, obs sql.NullFloat64
		if err := rows.Scan(&name, &start, &life, &obs); err != nil {
			t.Fatal(err)
		}
		w, ok := dev[name]
		seen++
		bad := !ok || start != w.start ||
			w.bucket == 0 && (life.Valid || obs.Float64 != w.observed) ||
			w.bucket != 0 && (!life.Valid || obs.Valid || rcBucket(life.Float64) != w.bucket)
		if bad && wrong == 0 {
			t.Errorf("dev VM %s: start %v, lifetime %v, observed %v; want %+v", name, start, life, obs, w)
		}
		if bad {
			wrong++
		}
	}
	if seen != len(dev) || wrong != 0 {
		t.Fatalf("%d dev VMs loaded, %d recounted; %d differ", seen, len(dev), wrong)
	}
	t.Logf("train %d VMs in %d batches, dev %d VMs (%d finished, %d censored) in %d batches", trainVMs, trainBatches, devU+devC, devU, devC, devBatches)
}

// forLines calls fn with each line of a file and its 1-based number.
func forLines(t *testing.T, path string, fn func(n int, line string)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	n := 0
	for sc.Scan() {
		n++
		fn(n, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFlavorIngest: the published train and dev splits (1.46M VMs).
func BenchmarkFlavorIngest(b *testing.B) {
	dir := shareddata.Path(b, "azure-v1-flavor")
	for i := 0; i < b.N; i++ {
		db := openDB(b)
		c, err := Ingest(context.Background(), db, "azure-flavor", []string{dir}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if c.Tables["vm"] < 1_400_000 {
			b.Fatalf("only %d VMs", c.Tables["vm"])
		}
		b.ReportMetric(float64(c.Tables["vm"])/b.Elapsed().Seconds()*float64(i+1), "vms/s")
	}
}

// FuzzFlavor: any flavor and duration trace beside the fixture's maps loads
// or fails with a *RowError leaving the database as it was; a load never
// ends a VM after the censor time nor leaves one without an end and without
// a vm_censor row.
func FuzzFlavor(f *testing.F) {
	f.Add([]byte(flavFixDev), []byte(flavFixDevDur))
	f.Add([]byte("300 a,|\n"), []byte("300 U9,|\n"))
	f.Add([]byte("300 a,,|\n"), []byte("300 C,|\n"))
	f.Add([]byte("300 |\n600 a\n"), []byte("300 |\n600 U0\n"))
	db := openDB(f)
	dir := flavorFixture(f, map[string]string{"v1.train.txt": "", "v1.dev.txt": "", flavFixDevName: ""})
	f.Fuzz(func(t *testing.T, flav, dur []byte) {
		for name, data := range map[string][]byte{"v1.dev.txt": flav, flavFixDevName: dur} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before := tableCounts(t, db)
		_, err := Ingest(context.Background(), db, "azure-flavor", []string{dir}, Options{Dataset: "fuzz"})
		if err != nil {
			var re *RowError
			if !errors.As(err, &re) {
				t.Fatalf("error is not a RowError: %T %v", err, err)
			}
			if after := tableCounts(t, db); !maps.Equal(before, after) {
				t.Fatalf("a failed ingest (%v) changed the database", err)
			}
			return
		}
		if n := rowCount(t, db, `SELECT count(*) FROM vm v LEFT JOIN vm_censor c USING (load_id, vm_id)
			WHERE v.dataset = 'fuzz' AND (v.end_s > 3000 OR v.end_s < v.start_s OR (v.end_s IS NULL) = (c.vm_id IS NULL))`); n != 0 {
			t.Fatalf("%d VMs end after the censor time, before their start, or are both ended and censored", n)
		}
	})
}
