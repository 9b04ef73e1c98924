package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"placelab/internal/shareddata"
)

func TestReadInstance(t *testing.T) {
	cases := []struct {
		name, file, text string
		want             *Instance
		err              error  // sentinel the error wraps
		where            string // substring of the error: file, row and field
	}{
		{
			name: "bpp with CRLF and repeated weights",
			file: "a.txt",
			text: "4\r\n10\r\n7\r\n3\r\n7\r\n5\r\n",
			want: &Instance{Capacity: []float64{10}, Sizes: [][]float64{{7}, {3}, {5}}, Counts: []int64{2, 1, 1}, Items: 4},
		},
		{
			name: "bpp tokens on one line",
			file: "b.bpp",
			text: "2 5 5 1",
			want: &Instance{Capacity: []float64{5}, Sizes: [][]float64{{5}, {1}}, Counts: []int64{1, 1}, Items: 2},
		},
		{
			name: "vbp merges identical lines",
			file: "c.vbp",
			text: "2\n10 20\n3\n1 2 3\n4 0 1\n1 2 2\n",
			want: &Instance{Capacity: []float64{10, 20}, Sizes: [][]float64{{1, 2}, {4, 0}}, Counts: []int64{5, 1}, Items: 6},
		},
		{name: "bpp weight above capacity", file: "d.txt", text: "2\n10\n11\n3\n", err: ErrExceedsCapacity, where: "d.txt: row 3: field weight"},
		{name: "bpp too few weights", file: "e.txt", text: "3\n10\n1\n2\n", err: ErrMalformed, where: "field n"},
		{name: "bpp not a number", file: "f.txt", text: "2\n10\n1\nx\n", err: ErrNotNumber, where: "row 4: field weight"},
		{name: "vbp wrong arity", file: "g.vbp", text: "2\n10 10\n1\n1 2\n", err: ErrMalformed, where: "row 4: field sizes"},
		{name: "vbp negative size", file: "h.vbp", text: "1\n10\n1\n-1 1\n", err: ErrNegative, where: "field size[0]"},
		{name: "vbp zero count", file: "i.vbp", text: "1\n10\n1\n1 0\n", err: ErrNonPositive, where: "field count"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.file)
			if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadInstance(p)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				var re *RowError
				if !errors.As(err, &re) || !strings.Contains(err.Error(), c.where) {
					t.Fatalf("err = %v, want a *RowError mentioning %q", err, c.where)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.want.File = p
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
	if _, err := ReadInstance(filepath.Join(dir, "missing.txt")); err == nil {
		t.Fatal("missing file: no error")
	}
}

func TestReadOptima(t *testing.T) {
	dir := t.TempDir()
	csv := "set,instance,opt\nu,a.txt,3\nv,class1/b.vbp,7\n"
	if err := os.WriteFile(filepath.Join(dir, "optima.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadOptima(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"u/a.txt": 3, "v/class1/b.vbp": 7}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "optima.csv"), []byte("set,instance,opt\nu,a.txt,zero\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadOptima(bad); !errors.Is(err, ErrNotNumber) || !strings.Contains(err.Error(), "row 2") {
		t.Fatalf("err = %v, want ErrNotNumber at row 2", err)
	}
}

// TestReadInstanceShared reads one instance of each format from the shared
// data and checks it against optima.csv's key.
func TestReadInstanceShared(t *testing.T) {
	dir := shareddata.Path(t, "binpacking")
	opt, err := ReadOptima(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key   string
		dims  int
		items int64
	}{
		{"falkenauer_u/Falkenauer_u120_00.txt", 1, 120},
		{"vbp_panigrahy/class1/class1_20_3_0.vbp", 3, 20},
	} {
		in, err := ReadInstance(filepath.Join(dir, filepath.FromSlash(c.key)))
		if err != nil {
			t.Fatal(err)
		}
		if in.Dims() != c.dims || in.Items != c.items {
			t.Errorf("%s: dims %d items %d, want %d and %d", c.key, in.Dims(), in.Items, c.dims, c.items)
		}
		if opt[c.key] <= 0 {
			t.Errorf("%s: no optimum in optima.csv", c.key)
		}
	}
}
