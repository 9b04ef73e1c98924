package catalog

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"placelab/internal/shareddata"
)

// awsCatalog is the real catalog of ../shared/data/catalogs (see its
// README.md): 1,101 EC2 types in us-east-1.
const awsCatalog = "catalogs/aws-ec2-us-east-1.csv"

// tol: the expected values below are exact decimals compared after a few
// float operations.
const tol = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// write puts content in a file named name in a fresh temporary directory.
func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustRead(t *testing.T, path string, o ReadOptions) *Catalog {
	t.Helper()
	c, err := Read(path, o)
	if err != nil {
		t.Fatalf("Read(%s): %v", path, err)
	}
	return c
}

func readAWS(t *testing.T) (*Catalog, string) {
	t.Helper()
	p := shareddata.Path(t, awsCatalog)
	return mustRead(t, p, ReadOptions{}), p
}

func find(t *testing.T, c *Catalog, name string) Type {
	t.Helper()
	for _, ty := range c.Types {
		if ty.Name == name {
			return ty
		}
	}
	t.Fatalf("%s: no type %s", c.File, name)
	return Type{}
}

func TestReadAWS(t *testing.T) {
	c, p := readAWS(t)
	if len(c.Types) != 1101 {
		t.Fatalf("types: %d, want 1101", len(c.Types))
	}
	if c.PriceColumn != "on_demand_usd_per_hour" || !reflect.DeepEqual(c.PriceColumns, []string{"on_demand_usd_per_hour"}) {
		t.Errorf("price column %q of %v", c.PriceColumn, c.PriceColumns)
	}
	wantCols := map[string]string{RoleName: "name", RoleFamily: "family", RoleCPU: "vcpus", RoleMemory: "memory_mib",
		RoleGPUs: "gpus", RoleArch: "arch", RolePrice: "on_demand_usd_per_hour"}
	if !reflect.DeepEqual(c.Columns, wantCols) {
		t.Errorf("columns %v, want %v", c.Columns, wantCols)
	}
	if len(c.Ignored) != 0 || len(c.Notes) != 0 || c.Format != FormatCSV {
		t.Errorf("ignored %v, notes %v, format %s", c.Ignored, c.Notes, c.Format)
	}
	arch := map[string]int{}
	for _, ty := range c.Types {
		arch[ty.Arch]++
	}
	if arch[ArchAMD64] != 759 || arch[ArchARM64] != 342 || len(arch) != 2 {
		t.Errorf("arch counts %v, want 759 amd64, 342 arm64", arch)
	}
	// Rows as the file has them (grep -n): the line is the file's.
	for _, want := range []Type{
		{Name: "a1.medium", Family: "a1", Arch: ArchARM64, VCPUs: 1, MemoryMiB: 2048, Price: 0.0255, CapacityType: OnDemand, Line: 5},
		{Name: "m5.large", Family: "m5", Arch: ArchAMD64, VCPUs: 2, MemoryMiB: 8192, Price: 0.096, CapacityType: OnDemand, Line: 466},
		{Name: "p4d.24xlarge", Family: "p4d", Arch: ArchAMD64, VCPUs: 96, MemoryMiB: 1179648, GPUs: 8, Price: 21.957642, CapacityType: OnDemand, Line: 715},
		{Name: "z1d.xlarge", Family: "z1d", Arch: ArchAMD64, VCPUs: 4, MemoryMiB: 32768, Price: 0.372, CapacityType: OnDemand, Line: 1102},
	} {
		if got := find(t, c, want.Name); got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", want.Name, got, want)
		}
	}
	if c.Types[0].Name != "a1.2xlarge" || c.Types[0].Line != 2 || c.Types[1100].Name != "z1d.xlarge" {
		t.Errorf("not in file order: first %+v, last %+v", c.Types[0], c.Types[1100])
	}
	if got := find(t, c, "a1.medium").MemoryGB(); !near(got, 2.147483648) {
		t.Errorf("a1.medium: %g GB, want 2.147483648 (2048 MiB)", got)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); c.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("sha256 %s", c.SHA256)
	}
}

// TestOtherEncodings: the AWS catalog as Parquet (typed columns, cast back
// to text by the query) and as .csv.gz reads to the same types.
func TestOtherEncodings(t *testing.T) {
	c, p := readAWS(t)
	dir := t.TempDir()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pq := filepath.Join(dir, "aws.parquet")
	// read_csv's types: vcpus and memory BIGINT, the price DOUBLE. Paths
	// from t.TempDir and ../shared hold no quote.
	if _, err := db.Exec(fmt.Sprintf("COPY (SELECT * FROM read_csv('%s')) TO '%s' (FORMAT parquet)", p, pq)); err != nil {
		t.Fatal(err)
	}
	var priceType string
	if err := db.QueryRow("SELECT column_type FROM (DESCRIBE SELECT * FROM read_parquet(?)) WHERE column_name = 'on_demand_usd_per_hour'", pq).Scan(&priceType); err != nil || priceType != "DOUBLE" {
		t.Fatalf("parquet price column type %q, %v: want DOUBLE, to test the cast", priceType, err)
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	gzPath := filepath.Join(dir, "AWS.CSV.GZ") // the extension in any case
	if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{pq, gzPath} {
		got := mustRead(t, path, ReadOptions{})
		if !reflect.DeepEqual(got.Types, c.Types) {
			for i := range c.Types {
				if i >= len(got.Types) || got.Types[i] != c.Types[i] {
					t.Fatalf("%s: type %d differs:\n got %+v\nwant %+v", path, i, got.Types[min(i, len(got.Types)-1)], c.Types[i])
				}
			}
			t.Fatalf("%s: %d types, want %d", path, len(got.Types), len(c.Types))
		}
		if !reflect.DeepEqual(got.Columns, c.Columns) || got.PriceColumn != c.PriceColumn || got.SHA256 == c.SHA256 {
			t.Errorf("%s: columns %v, price %s, sha %s", path, got.Columns, got.PriceColumn, got.SHA256)
		}
	}
}

// TestBadRows: every bad value refuses the file, naming the file, the line
// and data row, and the field.
func TestBadRows(t *testing.T) {
	const head = "name,vcpus,memory_mib,gpus,arch,max_count,pods,capacity_type,interruptions_per_year,price_per_hour\n"
	const good = "ok.large,2,8192,0,amd64,,,on-demand,,0.1\n"
	cases := []struct {
		name      string
		csv       string // after the header
		line, row int
		field     string
		is        error
		says      string
	}{
		{"vcpus not a number", good + "a.x,abc,1024,0,amd64,,,,,0.1\n", 3, 2, "vcpus", ErrNotNumber, `"abc": not a number`},
		{"vcpus zero", "a.x,0,1024,0,amd64,,,,,0.1\n", 2, 1, "vcpus", ErrOutOfRange, "must be > 0"},
		{"vcpus negative", "a.x,-2,1024,0,amd64,,,,,0.1\n", 2, 1, "vcpus", ErrOutOfRange, "must be > 0"},
		{"vcpus empty", "a.x,,1024,0,amd64,,,,,0.1\n", 2, 1, "vcpus", ErrEmptyValue, "empty"},
		{"vcpus hex", "a.x,0x10,1024,0,amd64,,,,,0.1\n", 2, 1, "vcpus", ErrNotNumber, "not a number"},
		{"memory zero", "a.x,1,0,0,amd64,,,,,0.1\n", 2, 1, "memory_mib", ErrOutOfRange, "must be > 0"},
		{"memory NaN", "a.x,1,NaN,0,amd64,,,,,0.1\n", 2, 1, "memory_mib", ErrNotNumber, "not a finite number"},
		{"price infinite", "a.x,1,1024,0,amd64,,,,,Inf\n", 2, 1, "price_per_hour", ErrNotNumber, "not a finite number"},
		{"price negative", "a.x,1,1024,0,amd64,,,,,-0.1\n", 2, 1, "price_per_hour", ErrOutOfRange, "must be >= 0"},
		{"price empty", "a.x,1,1024,0,amd64,,,,,\n", 2, 1, "price_per_hour", ErrEmptyValue, "empty"},
		{"gpus negative", "a.x,1,1024,-1,amd64,,,,,0.1\n", 2, 1, "gpus", ErrOutOfRange, "must be >= 0"},
		{"name empty", good + "b.x,1,1024,0,amd64,,,,,0.1\n" + ",1,1024,0,amd64,,,,,0.1\n", 4, 3, "name", ErrEmptyValue, "needs a name"},
		{"duplicate name, both rows named", good + "b.x,1,1024,0,amd64,,,,,0.1\n" + good, 4, 3, "name", ErrDuplicate, `"ok.large": duplicate name: line 2 (data row 1) has it too`},
		{"unknown arch", "a.x,1,1024,0,sparc,,,,,0.1\n", 2, 1, "arch", ErrUnknown, "unknown architecture"},
		{"unknown capacity type", "a.x,1,1024,0,amd64,,,reserved,,0.1\n", 2, 1, "capacity_type", ErrUnknown, "unknown capacity type"},
		{"max_count fractional", "a.x,1,1024,0,amd64,2.5,,,,0.1\n", 2, 1, "max_count", ErrNotNumber, "not a whole number"},
		{"max_count negative", "a.x,1,1024,0,amd64,-1,,,,0.1\n", 2, 1, "max_count", ErrOutOfRange, "must be >= 0"},
		{"pods zero", "a.x,1,1024,0,amd64,,0,,,0.1\n", 2, 1, "pods", ErrOutOfRange, "must be > 0"},
		{"interruptions negative", "a.x,1,1024,0,amd64,,,spot,-1,0.1\n", 2, 1, "interruptions_per_year", ErrOutOfRange, "must be >= 0"},
		{"interruptions on an on-demand type", "a.x,1,1024,0,amd64,,,,3,0.1\n", 2, 1, "interruptions_per_year", ErrOutOfRange, "on-demand"},
		{"blank lines count as lines", "\n" + good + "\n\na.x,zero,1024,0,amd64,,,,,0.1\n", 6, 2, "vcpus", ErrNotNumber, "not a number"},
		{"a quoted newline counts as a line", "\"a\nb\",1,1024,0,amd64,,,,,0.1\na.x,1,1024,0,amd64,,,,,x\n", 4, 2, "price_per_hour", ErrNotNumber, "not a number"},
		{"the first bad row is named", good + "a.x,1,-1,0,amd64,,,,,0.1\nb.x,-1,1024,0,amd64,,,,,0.1\n", 3, 2, "memory_mib", ErrOutOfRange, "must be > 0"},
		{"a short row", good + "a.x,1,1024\n", 3, 2, "", ErrMalformed, "the row has 3 fields, the header names 10"},
		{"a line of spaces", good + "   \n", 3, 2, "", ErrMalformed, "the row has 1 field, the header names 10"},
		{"a bare quote", good + "a\"x,1,1024,0,amd64,,,,,0.1\n", 3, 2, "", ErrMalformed, `bare " in non-quoted-field`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, "cat.csv", head+tc.csv)
			c, err := Read(p, ReadOptions{})
			if err == nil {
				t.Fatalf("read %d types, want an error", len(c.Types))
			}
			var re *RowError
			if !errors.As(err, &re) || !errors.Is(err, tc.is) {
				t.Fatalf("error %v (%T), want a *RowError wrapping %v", err, err, tc.is)
			}
			if re.File != p || re.Line != tc.line || re.Row != tc.row || re.Field != tc.field {
				t.Errorf("at file %s line %d row %d field %q, want line %d row %d field %q", re.File, re.Line, re.Row, re.Field, tc.line, tc.row, tc.field)
			}
			msg := err.Error()
			where := fmt.Sprintf("catalog %s: line %d (data row %d)", p, tc.line, tc.row)
			if !strings.HasPrefix(msg, where) || (tc.field != "" && !strings.Contains(msg, "field "+tc.field+" ")) || !strings.Contains(msg, tc.says) {
				t.Errorf("message %q: want %q, field %s, %q", msg, where, tc.field, tc.says)
			}
		})
	}
}

// TestBadParquetRow: a Parquet file has no lines; the error names the data row.
func TestBadParquetRow(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "bad.parquet")
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf(`COPY (SELECT * FROM (VALUES ('a.x', 1.0, 1024, 0.1), ('b.x', 'nan'::DOUBLE, 1024, 0.2)) v(name, vcpus, memory_mib, price_per_hour)) TO '%s' (FORMAT parquet)`, pq)); err != nil {
		t.Fatal(err)
	}
	_, err = Read(pq, ReadOptions{})
	want := fmt.Sprintf(`catalog %s: data row 2, field vcpus "nan": not a finite number`, pq)
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
}

// TestFileErrors: what is wrong with a file as a whole.
func TestFileErrors(t *testing.T) {
	cases := []struct {
		name, file, content string
		is                  error
		says                string // the message after "catalog PATH: "
	}{
		{"no CPU column", "x.csv", "name,memory_mib,price_per_hour\na,1,1\n", ErrNoColumn, "no CPU column: want vcpus or cores"},
		{"no memory column", "x.csv", "name,cores,price_per_hour\na,1,1\n", ErrNoColumn, "no memory column: want memory_mib, memory_gib or memory_gb"},
		{"no name column", "x.csv", "type,vcpus,memory_mib,price_per_hour\na,1,1,1\n", ErrNoColumn, "no name column: want name"},
		{"no price column", "x.csv", "name,vcpus,memory_mib,cost\na,1,1,1\n", ErrNoColumn, "no price column: want a column named *_usd_per_hour or price_per_hour, or name one with --price COL"},
		{"header only", "x.csv", "name,vcpus,memory_mib,price_per_hour\n", ErrEmpty, "no machine types: the file has a header and no rows"},
		{"empty file", "x.csv", "", ErrEmpty, "empty file: want a header and one row per machine type"},
		{"two columns of one name", "x.csv", "name,vcpus,memory_mib,price_per_hour,VCPUs\na,1,1,1,1\n", ErrBadHeader, `columns 2 and 5 are both named "vcpus" (names are case-insensitive)`},
		{"semicolons", "x.csv", "name;vcpus;memory_mib;price_per_hour\na;1;1;1\n", ErrNoColumn,
			`no name column: want name (the header is one column, "name;vcpus;memory_mib;price_per_hour": a catalog's columns are separated by commas)`},
		{"unknown extension", "x.tsv", "name\tvcpus\n", ErrFormat, "unknown format: want a .csv, .csv.gz or .parquet file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, tc.file, tc.content)
			_, err := Read(p, ReadOptions{})
			if want := "catalog " + p + ": " + tc.says; err == nil || !errors.Is(err, tc.is) || err.Error() != want {
				t.Errorf("error %v\nwant  %s (wrapping %v)", err, want, tc.is)
			}
		})
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none.csv"), ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent file: %v", err)
	}
}

func TestPriceColumns(t *testing.T) {
	p := write(t, "two.csv", "name,vcpus,memory_mib,on_demand_usd_per_hour,spot_usd_per_hour,cost\nm5.large,2,8192,0.096,0.035,7\n")
	_, err := Read(p, ReadOptions{})
	want := "catalog " + p + ": 2 price columns (on_demand_usd_per_hour, spot_usd_per_hour): pick one with --price COL"
	if err == nil || !errors.Is(err, ErrPriceColumn) || err.Error() != want {
		t.Errorf("two price columns, no --price: %v\nwant %s", err, want)
	}
	for _, tc := range []struct {
		price, column string
		value         float64
		ignored       []string
		priceColumns  []string
	}{
		{"spot_usd_per_hour", "spot_usd_per_hour", 0.035, []string{"on_demand_usd_per_hour", "cost"}, []string{"on_demand_usd_per_hour", "spot_usd_per_hour"}},
		{"ON_DEMAND_usd_per_hour", "on_demand_usd_per_hour", 0.096, []string{"spot_usd_per_hour", "cost"}, []string{"on_demand_usd_per_hour", "spot_usd_per_hour"}},
		// Any column may be named, not only those named as prices.
		{"cost", "cost", 7, []string{"on_demand_usd_per_hour", "spot_usd_per_hour"}, []string{"on_demand_usd_per_hour", "spot_usd_per_hour", "cost"}},
	} {
		c := mustRead(t, p, ReadOptions{Price: tc.price})
		if c.PriceColumn != tc.column || c.Types[0].Price != tc.value || c.Columns[RolePrice] != tc.column ||
			!reflect.DeepEqual(c.Ignored, tc.ignored) || !reflect.DeepEqual(c.PriceColumns, tc.priceColumns) {
			t.Errorf("--price %s: column %s price %g ignored %v price columns %v", tc.price, c.PriceColumn, c.Types[0].Price, c.Ignored, c.PriceColumns)
		}
	}
	for price, says := range map[string]string{
		"nope":  "--price nope: no such column; the price columns are on_demand_usd_per_hour, spot_usd_per_hour",
		"vcpus": "--price vcpus: that column is read as the cpu",
	} {
		_, err := Read(p, ReadOptions{Price: price})
		if want := "catalog " + p + ": " + says; err == nil || !errors.Is(err, ErrPriceColumn) || err.Error() != want {
			t.Errorf("--price %s: %v\nwant %s", price, err, want)
		}
	}
}

// TestMemoryUnits: memory_gb is 10^9 bytes, memory_gib 2^30, memory_mib 2^20.
func TestMemoryUnits(t *testing.T) {
	cases := []struct {
		header, value string
		mib, gb       float64
	}{
		{"memory_gb", "16", 16e9 / (1 << 20), 16},               // 15258.7890625 MiB
		{"memory_mib", "16384", 16384, 16384 * (1 << 20) / 1e9}, // 17.179869184 GB
		{"memory_gib", "2", 2048, 2 * (1 << 30) / 1e9},          // 2.147483648 GB
		{"Memory_GB", "0.5", 0.5e9 / (1 << 20), 0.5},
	}
	for _, tc := range cases {
		p := write(t, "m.csv", "name,vcpus,"+tc.header+",price_per_hour\nx.large,2,"+tc.value+",1\n")
		c := mustRead(t, p, ReadOptions{})
		ty := c.Types[0]
		if !near(ty.MemoryMiB, tc.mib) || !near(ty.MemoryGB(), tc.gb) || c.Columns[RoleMemory] != tc.header {
			t.Errorf("%s=%s: %g MiB, %g GB (column %s), want %g MiB, %g GB", tc.header, tc.value, ty.MemoryMiB, ty.MemoryGB(), c.Columns[RoleMemory], tc.mib, tc.gb)
		}
	}
	// Both: memory_mib is read, memory_gb ignored and noted.
	p := write(t, "both.csv", "name,vcpus,memory_gb,memory_mib,price_per_hour\nx.large,2,8,8192,1\n")
	c := mustRead(t, p, ReadOptions{})
	if c.Types[0].MemoryMiB != 8192 || !reflect.DeepEqual(c.Ignored, []string{"memory_gb"}) ||
		!reflect.DeepEqual(c.Notes, []string{"column memory_gb not read: memory_mib is read for memory"}) {
		t.Errorf("both memory columns: %g MiB, ignored %v, notes %v", c.Types[0].MemoryMiB, c.Ignored, c.Notes)
	}
}

// TestOptionalColumns: defaults, other spellings, unknown columns.
func TestOptionalColumns(t *testing.T) {
	p := write(t, "opt.csv", "\ufeffName,Cores,Memory_MiB,Arch,Family,Max_Count,Pods,Capacity_Type,Interruptions_Per_Year,Price_Per_Hour,Region,\n"+
		"n2-standard-4,4,16384,x86_64,,,,,,0.19,us-central1,\n"+
		"t2a-standard-4,4,16384,AARCH64,t2a,3,58,Spot,12.5,0.05,us-central1,\n"+
		"box,64,262144,arm64,mine,0,250,preemptible,,0,lab,\n"+
		"b2,8,32768,x86_64,,,,on-demand,0,1,lab,\n")
	c := mustRead(t, p, ReadOptions{})
	want := []Type{
		{Name: "n2-standard-4", Family: "n2-standard-4", Arch: ArchAMD64, VCPUs: 4, MemoryMiB: 16384, Price: 0.19, CapacityType: OnDemand, Line: 2},
		{Name: "t2a-standard-4", Family: "t2a", Arch: ArchARM64, VCPUs: 4, MemoryMiB: 16384, Price: 0.05, MaxCount: 3, Pods: 58, CapacityType: Spot, InterruptionsPerYear: 12.5, Line: 3},
		{Name: "box", Family: "mine", Arch: ArchARM64, VCPUs: 64, MemoryMiB: 262144, Pods: 250, CapacityType: Preemptible, Line: 4},
		{Name: "b2", Family: "b2", Arch: ArchAMD64, VCPUs: 8, MemoryMiB: 32768, Price: 1, CapacityType: OnDemand, Line: 5},
	}
	if !reflect.DeepEqual(c.Types, want) {
		t.Errorf("types:\n got %+v\nwant %+v", c.Types, want)
	}
	if c.Columns[RoleCPU] != "Cores" || c.Columns[RoleName] != "Name" || c.PriceColumn != "Price_Per_Hour" {
		t.Errorf("columns %v", c.Columns)
	}
	if !reflect.DeepEqual(c.Ignored, []string{"Region", "(column 12, no name)"}) {
		t.Errorf("ignored %q", c.Ignored)
	}
	wantNotes := []string{`arch "AARCH64" read as arm64 on 1 rows (first on line 3)`, `arch "x86_64" read as amd64 on 2 rows (first on line 2)`}
	if !reflect.DeepEqual(c.Notes, wantNotes) {
		t.Errorf("notes %q\nwant  %q", c.Notes, wantNotes)
	}
	// No arch column: amd64.
	c = mustRead(t, write(t, "min.csv", "name,vcpus,memory_mib,price_per_hour\nm5.large,2,8192,0.096\n"), ReadOptions{})
	if ty := c.Types[0]; ty.Arch != ArchAMD64 || ty.Family != "m5" || ty.CapacityType != OnDemand || ty.GPUs != 0 {
		t.Errorf("defaults %+v", ty)
	}
}

func TestFilter(t *testing.T) {
	c, _ := readAWS(t)
	// Counts by awk over the file, e.g. awk -F, '$2=="m5"||$2=="c5"||$2=="r5"'.
	for _, tc := range []struct {
		filter, canonical string
		n                 int
	}{
		{"", "", 1101},
		{"arch=amd64", "arch=amd64", 759},
		{"arch=x86_64", "arch=amd64", 759},
		{"arch=arm64", "arch=arm64", 342},
		{"family=m5,c5,r5", "family=m5,c5,r5", 27},
		{"family=M5", "family=M5", 9},
		{"name=m5.*", "name=m5.*", 9}, // not m5a.*, m5d.*
		{"arch=amd64;vcpus<=64", "arch=amd64;vcpus<=64", 565},
		{" arch=amd64  vcpus<=64 ;", "arch=amd64;vcpus<=64", 565},
		{"gpus>0", "gpus>0", 61},
		{"gpus=0", "gpus=0", 1040},
		{"vcpus=1,2", "vcpus=1,2", 162},
		{"name=m5.*;memory_gib>=32;memory_gib<64", "name=m5.*;memory_gib>=32;memory_gib<64", 1}, // m5.2xlarge: 32 GiB
		{"capacity_type=on-demand", "capacity_type=on-demand", 1101},
	} {
		f, err := ParseFilter(tc.filter)
		if err != nil {
			t.Errorf("%q: %v", tc.filter, err)
			continue
		}
		if f.String() != tc.canonical {
			t.Errorf("%q: String %q, want %q", tc.filter, f.String(), tc.canonical)
		}
		kept, err := c.Filter(f)
		if err != nil || len(kept.Types) != tc.n || kept.TypesFilter != tc.canonical {
			t.Errorf("%q: %v, want %d types", tc.filter, err, tc.n)
			continue
		}
		for _, ty := range kept.Types {
			if !f.Keep(ty) {
				t.Errorf("%q kept %s, which it does not Keep", tc.filter, ty.Name)
			}
		}
	}
	if f, _ := ParseFilter("name=m5.*"); !f.Keep(Type{Name: "m5.large"}) || f.Keep(Type{Name: "m5a.large"}) {
		t.Errorf("name glob")
	}
	for filter, says := range map[string]string{
		"size=large":     `unknown key "size"`,
		"vcpus":          "want KEY=VALUES",
		"=m5":            "want KEY=VALUES",
		"vcpus<=abc":     `"abc" is not a number`,
		"vcpus<=":        "no value after <=",
		"vcpus<=8,16":    "a list is for =",
		"family>m5":      "family takes = only",
		"name=[":         "bad pattern",
		"arch=sparc":     `unknown architecture "sparc"`,
		"family=m5,,c5":  "an empty value",
		"vcpus>=2<=8":    "one operator per clause",
		"capacity_type=": "no value after =",
	} {
		_, err := ParseFilter("arch=amd64;" + filter)
		if err == nil || !errors.Is(err, ErrFilter) || !strings.Contains(err.Error(), fmt.Sprintf("clause %q", filter)) || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want the clause named and %q", filter, err, says)
		}
	}
	f, _ := ParseFilter("arch=arm64;vcpus>192")
	_, err := c.Filter(f)
	want := fmt.Sprintf(`catalog %s: no type of 1101 passes --types "arch=arm64;vcpus>192"`, c.File)
	if err == nil || !errors.Is(err, ErrNothingLeft) || err.Error() != want {
		t.Errorf("nothing left: %v\nwant %s", err, want)
	}
}

// TestReserved checks the formulas against values worked by hand.
func TestReserved(t *testing.T) {
	small := Type{Name: "m5.large", VCPUs: 2, MemoryMiB: 8 * 1024}
	big := Type{Name: "m5.24xlarge", VCPUs: 96, MemoryMiB: 384 * 1024}
	cases := []struct {
		name      string
		r         Reserved
		t         Type
		cpu, mem  float64
		pods      int
		formulaIn string
	}{
		// CPU, both: 6% of core 1 = 60m, 1% of core 2 = 10m: 70m; 2 − 0.070 = 1.930.
		// eks memory: 11 × 110 + 255 = 1465 MiB, + 100 eviction = 1565; 8192 − 1565 = 6627.
		{"eks 2 vCPU 8 GiB", ReservedEKS, small, 1.93, 6627, 110, "kube-reserved cpu 70m"},
		// gke memory: 25% × 4096 = 1024, 20% × 4096 = 819.2: 1843.2, + 100 = 1943.2;
		// 8192 − 1943.2 = 6248.8.
		{"gke 2 vCPU 8 GiB", ReservedGKE, small, 1.93, 6248.8, 110, "memory 1843.2 MiB"},
		// CPU: 60m + 10m + 0.5% × 2 cores = 10m + 0.25% × 92 cores = 230m: 310m; 96 − 0.31 = 95.69.
		// eks memory does not depend on the machine's size: 393216 − 1565 = 391651.
		{"eks 96 vCPU 384 GiB", ReservedEKS, big, 95.69, 391651, 110, "kube-reserved cpu 310m"},
		// gke memory: 1024 + 819.2 + 10% × 8192 = 819.2 + 6% × 114688 (112 GiB) = 6881.28
		// + 2% × 262144 (256 GiB above 128) = 5242.88: 14786.56, + 100 = 14886.56;
		// 393216 − 14886.56 = 378329.44.
		{"gke 96 vCPU 384 GiB", ReservedGKE, big, 95.69, 378329.44, 110, "memory 14786.56 MiB"},
		// A pods value: 11 × 29 + 255 = 574, + 100 = 674; 8192 − 674 = 7518.
		{"eks with pods", ReservedEKS, Type{VCPUs: 2, MemoryMiB: 8192, Pods: 29}, 1.93, 7518, 29, "11 MiB × 29 max pods"},
		// bootstrap.sh truncates each tier: core 5 gives 1000 × 25 / 100 / 100 = 2m (not 2.5):
		// 60 + 10 + 10 + 2 = 82m; 5 − 0.082 = 4.918. GKE takes 82.5m: 4.9175.
		{"eks 5 vCPU truncates", ReservedEKS, Type{VCPUs: 5, MemoryMiB: 8192}, 4.918, 6627, 110, "cpu 82m"},
		{"gke 5 vCPU exact", ReservedGKE, Type{VCPUs: 5, MemoryMiB: 8192}, 4.9175, 6248.8, 110, "cpu 82.5m"},
		// Under 1 GiB GKE keeps 255 MiB: 512 − 255 − 100 = 157.
		{"gke under 1 GiB", ReservedGKE, Type{VCPUs: 1, MemoryMiB: 512}, 0.94, 157, 110, "255 MiB under 1 GiB"},
		// Nothing left is 0, not negative: 1024 − 1565 < 0.
		{"eks too small", ReservedEKS, Type{VCPUs: 1, MemoryMiB: 1024}, 0.94, 0, 110, "eks:"},
		{"none", ReservedNone, Type{VCPUs: 3, MemoryMiB: 1000, GPUs: 1, Pods: 7}, 3, 1000, 7, "none: allocatable = capacity"},
	}
	for _, tc := range cases {
		a := tc.r.Allocatable(tc.t)
		if !near(a.CPU, tc.cpu) || !near(a.MemoryMiB, tc.mem) || a.Pods != tc.pods || a.GPUs != tc.t.GPUs || !strings.Contains(a.Formula, tc.formulaIn) {
			t.Errorf("%s: %+v, want cpu %g memory %g MiB pods %d, formula with %q", tc.name, a, tc.cpu, tc.mem, tc.pods, tc.formulaIn)
		}
		if strings.Contains(a.Formula, "\n") {
			t.Errorf("%s: formula on several lines", tc.name)
		}
	}
	for s, want := range map[string]Reserved{"": ReservedNone, "none": ReservedNone, "EKS": ReservedEKS, " gke ": ReservedGKE} {
		if r, err := ParseReserved(s); err != nil || r != want {
			t.Errorf("ParseReserved(%q) = %q, %v", s, r, err)
		}
	}
	if _, err := ParseReserved("aks"); !errors.Is(err, ErrReserved) || !strings.Contains(err.Error(), "want none, eks or gke") {
		t.Errorf("ParseReserved(aks): %v", err)
	}
}

// TestHelp: the help names every column and fits the terminal.
func TestHelp(t *testing.T) {
	lines := strings.Split(Help, "\n")
	if len(lines) < 30 || len(lines) > 45 {
		t.Errorf("%d lines, want 30-45", len(lines))
	}
	for i, l := range lines {
		if len([]rune(l)) > 100 {
			t.Errorf("line %d is %d wide: %s", i+1, len([]rune(l)), l)
		}
	}
	for _, w := range []string{"name", "vcpus", "cores", "memory_mib", "memory_gb", "gpus", "arch", "_usd_per_hour",
		"price_per_hour", "--price", "family", "max_count", "pods", "capacity_type", "interruptions_per_year",
		"--types", "--reserved", "eks", "gke", "line"} {
		if !strings.Contains(Help, w) {
			t.Errorf("help does not mention %s", w)
		}
	}
}

func ExampleRead() {
	c, err := Read("testdata/tiny.csv", ReadOptions{Price: "spot_usd_per_hour"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.PriceColumn, "of", c.PriceColumns, "ignored", c.Ignored)
	f, _ := ParseFilter("arch=amd64")
	c, _ = c.Filter(f)
	for _, t := range c.Types {
		a := ReservedEKS.Allocatable(t)
		fmt.Printf("%s line %d: %g vCPU %.1f GB $%g/h; eks allocatable %g vCPU %.0f MiB\n",
			t.Name, t.Line, t.VCPUs, t.MemoryGB(), t.Price, a.CPU, a.MemoryMiB)
	}
	// Output:
	// spot_usd_per_hour of [on_demand_usd_per_hour spot_usd_per_hour] ignored [on_demand_usd_per_hour region]
	// m5.large line 2: 2 vCPU 8.0 GB $0.035/h; eks allocatable 1.93 vCPU 6064 MiB
	// m5.24xlarge line 3: 96 vCPU 384.0 GB $1.65/h; eks allocatable 95.69 vCPU 364646 MiB
}
