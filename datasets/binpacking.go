package datasets

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	store "placelab/sql"
)

// ErrExceedsCapacity: an item is larger than the bin.
var ErrExceedsCapacity = errors.New("size exceeds the bin capacity")

func init() {
	register(Format{
		Name:    "bpp",
		Summary: "one-dimensional bin packing instances, BPPLIB format (n, C, n weights); PATH may be a directory of *.txt",
		Help: `BPPLIB one-dimensional bin packing instances: whitespace-separated integers (line breaks
and CRLF do not matter): the number of items n, the bin capacity C, then n item weights.
PATH is an instance file or a directory walked recursively for *.txt (and *.txt.gz).
Tables:
  bpp_instance one row per file: dims 1, capacity [C], items n, opt;
  bpp_item     one row per distinct weight (kind 0, 1, ... in order of first appearance):
               sizes [weight], count = how many items have that weight.
Instance names: if an optima.csv (columns set,instance,opt) sits in the given directory or
any ancestor, a file below it at <set>/<path> is named "<set>/<path>" (as optima.csv spells
set and instance, e.g. falkenauer_u/Falkenauer_u1000_00.txt) and gets opt from there;
otherwise the name is the path relative to the given directory (the base name for a file).
Rejected (a whole instance, as *RowError naming the file and line as "row"): non-integer tokens, n or C
<= 0, a weight <= 0 or > C, and a file with fewer or more than n weights. Rows read/loaded
count instances.`,
		Load: func(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
			return loadBinPacking(ctx, w, paths, opts, parseBPP, ".txt", ".txt.gz")
		},
	})
	register(Format{
		Name:    "vbp",
		Summary: "vector (multi-dimensional) bin packing instances, .vbp format; PATH may be a directory of *.vbp",
		Help: `Vector bin packing instances in the .vbp format (Mommessin et al., vbp_panigrahy):
  line 1: d, the number of dimensions;
  line 2: the d bin capacities;
  line 3: m, the number of item kinds;
  then m lines, each with d sizes followed by the number of items of that kind.
All values are integers; blank lines are ignored. PATH is a file or a directory walked
recursively for *.vbp (and *.vbp.gz).
Tables:
  bpp_instance one row per file: dims d, capacity (d values), items = total item count, opt;
  bpp_item     one row per distinct size vector (identical lines are merged), kind 0, 1, ...
               in order of first appearance, sizes (d values), count.
Instance names and optima: as for the bpp format (optima.csv in the directory or an ancestor;
e.g. vbp_panigrahy/class1/class1_120_10_0.vbp).
Rejected (a whole instance, as *RowError naming the file and line as "row"): non-integer tokens, d, m or a
capacity <= 0, a line whose number of values does not match d, negative sizes, a size above
its dimension's capacity, an all-zero item, a count <= 0, and fewer or more than m item
lines. Rows read/loaded count instances.`,
		Load: func(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
			return loadBinPacking(ctx, w, paths, opts, parseVBP, ".vbp", ".vbp.gz")
		},
	})
}

// inputFile is one file to read and the PATH argument it came from.
type inputFile struct {
	path string
	root string // the PATH argument
	dir  bool   // root is a directory that was walked
}

// expandInputs turns PATH arguments into files: a file stands for itself, a
// directory is walked recursively (in lexical order) for names ending in one
// of exts (case-insensitive).
func expandInputs(paths []string, exts ...string) ([]inputFile, error) {
	var out []inputFile
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, &RowError{File: p, Err: errors.New("no such file")}
		}
		if !st.IsDir() {
			out = append(out, inputFile{path: p, root: p})
			continue
		}
		n := len(out)
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return &RowError{File: q, Err: err}
			}
			if d.IsDir() {
				return nil
			}
			name := strings.ToLower(d.Name())
			for _, e := range exts {
				if strings.HasSuffix(name, e) {
					out = append(out, inputFile{path: q, root: p, dir: true})
					break
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(out) == n {
			return nil, &RowError{File: p, Err: fmt.Errorf("%w: no %s files in this directory", ErrMissingField, strings.Join(exts, " or "))}
		}
	}
	return out, nil
}

// bppInstance is one parsed instance.
type bppInstance struct {
	capacity []float64
	items    int64
	sizes    [][]float64 // per kind
	counts   []int64
}

const (
	maxInt32 = math.MaxInt32
	maxExact = 1 << 53 // integers up to this are exact as DOUBLE
)

type bppParser func(t *tokenReader) (*bppInstance, error)

func loadBinPacking(ctx context.Context, w *store.Writer, paths []string, opts Options, parse bppParser, exts ...string) error {
	inputs, err := expandInputs(paths, exts...)
	if err != nil {
		return err
	}
	files := make([]string, len(inputs))
	for i, in := range inputs {
		files[i] = in.path
	}
	rej := rejecter{w, opts.MaxRejects}
	optimaAt := map[string]*optima{} // by the directory the search started in
	seen := map[string]string{}      // instance name → file
	i := -1
	return eachFile(files, opts.Progress, func(src *source) error {
		i++
		if err := ctx.Err(); err != nil {
			return err
		}
		in := inputs[i]
		start := in.root
		if !in.dir {
			start = filepath.Dir(in.root)
		}
		opt, ok := optimaAt[start]
		if !ok {
			var err error
			if opt, err = findOptima(start); err != nil {
				return err
			}
			optimaAt[start] = opt
		}
		w.Counts.RowsRead++
		err := func() error {
			inst, err := parse(newTokenReader(src))
			if err != nil {
				return err
			}
			name, best := opt.name(in)
			if prev, dup := seen[name]; dup {
				return &RowError{File: src.name, Field: "instance", Value: name, Err: fmt.Errorf("%w: instance name also used by %s", ErrDuplicateID, prev)}
			}
			seen[name] = src.name
			var optVal any
			if best > 0 {
				optVal = int32(best)
			}
			if err := w.Append("bpp_instance", name, int32(len(inst.capacity)), inst.capacity, int32(inst.items), optVal); err != nil {
				return err
			}
			for k := range inst.sizes {
				if err := w.Append("bpp_item", name, int32(k), inst.sizes[k], int32(inst.counts[k])); err != nil {
					return err
				}
			}
			w.Counts.RowsLoaded++
			return nil
		}()
		if err != nil {
			return rej.handle(err)
		}
		return nil
	})
}

// parseBPP reads n, C and n weights.
func parseBPP(t *tokenReader) (*bppInstance, error) {
	tok, err := t.token()
	if err == io.EOF {
		return nil, t.errf("n", "", fmt.Errorf("%w: empty file", ErrMalformed))
	} else if err != nil {
		return nil, err
	}
	n, err := t.integer(tok, "n", 1, maxInt32)
	if err != nil {
		return nil, err
	}
	tok, err = t.token()
	if err == io.EOF {
		return nil, t.errf("capacity", "", fmt.Errorf("%w: file ends before the capacity", ErrMalformed))
	} else if err != nil {
		return nil, err
	}
	c, err := t.integer(tok, "capacity", 1, maxExact)
	if err != nil {
		return nil, err
	}
	inst := &bppInstance{capacity: []float64{float64(c)}, items: n}
	kind := map[int64]int{}
	for i := int64(0); i < n; i++ {
		tok, err := t.token()
		if err == io.EOF {
			return nil, t.errf("n", "", fmt.Errorf("%w: n = %d but the file has %d weights", ErrMalformed, n, i))
		} else if err != nil {
			return nil, err
		}
		v, err := t.integer(tok, "weight", 1, maxExact)
		if err != nil {
			return nil, err
		}
		if v > c {
			return nil, t.errf("weight", tok, fmt.Errorf("%w %d", ErrExceedsCapacity, c))
		}
		k, ok := kind[v]
		if !ok {
			k = len(inst.sizes)
			kind[v] = k
			inst.sizes = append(inst.sizes, []float64{float64(v)})
			inst.counts = append(inst.counts, 0)
		}
		inst.counts[k]++
	}
	if tok, err := t.token(); err == nil {
		return nil, t.errf("n", tok, fmt.Errorf("%w: more than n = %d weights", ErrMalformed, n))
	} else if err != io.EOF {
		return nil, err
	}
	return inst, nil
}

// parseVBP reads the .vbp vector format.
func parseVBP(t *tokenReader) (*bppInstance, error) {
	f, err := t.line()
	if err == io.EOF {
		return nil, t.errf("d", "", fmt.Errorf("%w: empty file", ErrMalformed))
	} else if err != nil {
		return nil, err
	}
	if len(f) != 1 {
		return nil, t.errf("d", strings.Join(f, " "), fmt.Errorf("%w: line 1 must hold only d, the number of dimensions", ErrMalformed))
	}
	d, err := t.integer(f[0], "d", 1, 1<<16)
	if err != nil {
		return nil, err
	}
	if f, err = t.line(); err == io.EOF {
		return nil, t.errf("capacity", "", fmt.Errorf("%w: file ends before the capacities", ErrMalformed))
	} else if err != nil {
		return nil, err
	}
	if int64(len(f)) != d {
		return nil, t.errf("capacity", strings.Join(f, " "), fmt.Errorf("%w: %d capacities for d = %d", ErrMalformed, len(f), d))
	}
	inst := &bppInstance{capacity: make([]float64, d)}
	for j, tok := range f {
		c, err := t.integer(tok, "capacity", 1, maxExact)
		if err != nil {
			return nil, err
		}
		inst.capacity[j] = float64(c)
	}
	if f, err = t.line(); err == io.EOF {
		return nil, t.errf("m", "", fmt.Errorf("%w: file ends before m, the number of item kinds", ErrMalformed))
	} else if err != nil {
		return nil, err
	}
	if len(f) != 1 {
		return nil, t.errf("m", strings.Join(f, " "), fmt.Errorf("%w: line 3 must hold only m, the number of item kinds", ErrMalformed))
	}
	m, err := t.integer(f[0], "m", 1, maxInt32)
	if err != nil {
		return nil, err
	}
	kind := map[string]int{}
	var key []byte
	for i := int64(0); i < m; i++ {
		if f, err = t.line(); err == io.EOF {
			return nil, t.errf("m", "", fmt.Errorf("%w: m = %d but the file has %d item lines", ErrMalformed, m, i))
		} else if err != nil {
			return nil, err
		}
		if int64(len(f)) != d+1 {
			return nil, t.errf("sizes", strings.Join(f, " "), fmt.Errorf("%w: %d values, want d = %d sizes and a count", ErrMalformed, len(f), d))
		}
		sizes := make([]float64, d)
		key = key[:0]
		zero := true
		for j := range sizes {
			field := "size[" + strconv.Itoa(j) + "]"
			v, err := t.integer(f[j], field, 0, maxExact)
			if err != nil {
				return nil, err
			}
			if float64(v) > inst.capacity[j] {
				return nil, t.errf(field, f[j], fmt.Errorf("%w %g", ErrExceedsCapacity, inst.capacity[j]))
			}
			sizes[j] = float64(v)
			zero = zero && v == 0
			key = strconv.AppendInt(append(key, ' '), v, 10)
		}
		if zero {
			return nil, t.errf("sizes", strings.Join(f[:d], " "), fmt.Errorf("%w: every size is 0", ErrNonPositive))
		}
		cnt, err := t.integer(f[d], "count", 1, maxInt32)
		if err != nil {
			return nil, err
		}
		if inst.items += cnt; inst.items > maxInt32 {
			return nil, t.errf("count", f[d], fmt.Errorf("%w: more than %d items in all", ErrMalformed, maxInt32))
		}
		k, ok := kind[string(key)]
		if !ok {
			k = len(inst.sizes)
			kind[string(key)] = k
			inst.sizes = append(inst.sizes, sizes)
			inst.counts = append(inst.counts, 0)
		}
		inst.counts[k] += cnt
	}
	if f, err := t.line(); err == nil {
		return nil, t.errf("m", strings.Join(f, " "), fmt.Errorf("%w: more than m = %d item lines", ErrMalformed, m))
	} else if err != io.EOF {
		return nil, err
	}
	return inst, nil
}

// tokenReader reads whitespace-separated tokens with line numbers.
type tokenReader struct {
	name   string
	sc     *bufio.Scanner
	lineNo int64 // of the last line read
	toks   []string
}

func newTokenReader(src *source) *tokenReader {
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	return &tokenReader{name: src.name, sc: sc}
}

// line returns the fields of the next non-blank line; io.EOF at the end.
func (t *tokenReader) line() ([]string, error) {
	for t.sc.Scan() {
		t.lineNo++
		b := t.sc.Bytes()
		if t.lineNo == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			return f, nil
		}
	}
	if err := t.sc.Err(); err != nil {
		var re *RowError
		if errors.As(err, &re) {
			re.Row = t.lineNo + 1
			return nil, re
		}
		return nil, &RowError{File: t.name, Row: t.lineNo + 1, Err: fmt.Errorf("%w: %v", ErrMalformed, err)}
	}
	return nil, io.EOF
}

// token returns the next token; io.EOF at the end.
func (t *tokenReader) token() (string, error) {
	for len(t.toks) == 0 {
		f, err := t.line()
		if err != nil {
			return "", err
		}
		t.toks = f
	}
	tok := t.toks[0]
	t.toks = t.toks[1:]
	return tok, nil
}

func (t *tokenReader) errf(field, value string, err error) *RowError {
	return &RowError{File: t.name, Row: t.lineNo, Field: field, Value: value, Err: err}
}

// integer parses tok as an integer in [lo, hi] (lo is 0 or 1).
func (t *tokenReader) integer(tok, field string, lo, hi int64) (int64, error) {
	v, err := strconv.ParseInt(tok, 10, 64)
	switch {
	case err != nil:
		return 0, t.errf(field, tok, fmt.Errorf("%w: want an integer", ErrNotNumber))
	case v < 0 && lo == 0:
		return 0, t.errf(field, tok, ErrNegative)
	case v < lo:
		return 0, t.errf(field, tok, ErrNonPositive)
	case v > hi:
		return 0, t.errf(field, tok, fmt.Errorf("%w: larger than %d", ErrMalformed, hi))
	}
	return v, nil
}

// optima are the proven optima of an optima.csv (set,instance,opt).
type optima struct {
	root string           // the directory holding optima.csv
	opt  map[string]int64 // "set/instance" → bins
}

// findOptima looks for optima.csv in dir and its ancestors; nil if none.
func findOptima(dir string) (*optima, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil
	}
	for {
		p := filepath.Join(dir, "optima.csv")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return readOptima(dir, p)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, nil
		}
		dir = parent
	}
}

func readOptima(dir, p string) (*optima, error) {
	src, err := openSource(p)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	c, err := newCSV(src, ',', true)
	if err != nil {
		return nil, err
	}
	var idx [3]int
	for i, name := range []string{"set", "instance", "opt"} {
		if idx[i], err = c.col(name); err != nil {
			return nil, err
		}
	}
	o := &optima{root: dir, opt: map[string]int64{}}
	for {
		if _, err := c.next(); err == io.EOF {
			return o, nil
		} else if err != nil {
			return nil, err
		}
		set, err := c.str(idx[0], "set")
		if err != nil {
			return nil, err
		}
		inst, err := c.str(idx[1], "instance")
		if err != nil {
			return nil, err
		}
		if set == "" || inst == "" {
			return nil, c.errf("instance", "", ErrMissingField)
		}
		s, err := c.str(idx[2], "opt")
		if err != nil {
			return nil, err
		}
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, c.errf("opt", s, ErrNotNumber)
		}
		if v <= 0 {
			return nil, c.errf("opt", s, ErrNonPositive)
		}
		key := set + "/" + filepath.ToSlash(inst)
		if prev, dup := o.opt[key]; dup && prev != v {
			return nil, c.errf("instance", key, fmt.Errorf("%w: listed with opt %d and %d", ErrDuplicateID, prev, v))
		}
		o.opt[key] = v
	}
}

// name is an instance's name and its proven optimum (0 if unknown).
func (o *optima) name(in inputFile) (string, int64) {
	if o != nil {
		if abs, err := filepath.Abs(in.path); err == nil {
			if rel, err := filepath.Rel(o.root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				if set, inst, ok := strings.Cut(filepath.ToSlash(rel), "/"); ok {
					key := set + "/" + inst
					return key, o.opt[key]
				}
			}
		}
	}
	if in.dir {
		if rel, err := filepath.Rel(in.root, in.path); err == nil {
			return filepath.ToSlash(rel), 0
		}
	}
	return filepath.Base(in.path), 0
}
