package datasets

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	store "placelab/sql"
)

// ErrTraceMismatch: a duration trace does not match its flavor trace token
// for token (another time, another number of tokens, or a batch separator
// where the other has a VM).
var ErrTraceMismatch = errors.New("duration trace does not match its flavor trace")

func init() {
	register(Format{
		Name:    "azure-flavor",
		Summary: "Azure V1 flavor trace: its folder, or v1.<split>.txt (+ v1.<split>.c<N>.txt durations)",
		Help: `The processed Azure VM trace V1 of Bergsma et al. (its INPUT.md; CC-BY, cite Cortez et al.,
SOSP 2017): per 5-minute time bin, the VM flavors that arrived, in per-tenant batches.

Files, told apart by name (a .gz suffix is allowed on any of them):
  flav_map.txt          one line per flavor: "vCPUs,memoryGB letter", e.g. "1,0.75 a".
  *interval_map.txt     one line per duration: "seconds bin", seconds strictly increasing
                        from 0, bins 0, 1, 2, ... in order. Bin k holds the durations
                        lo_k..hi_k, its first and last seconds in the map (durations are
                        multiples of the map's step, 5 minutes in the published map, so
                        this is also (hi_{k-1}, hi_k]); one bin past the map's last, K,
                        holds every duration from hi_{K-1} + the map's last step on
                        (open-ended; the published map ends at 1,728,000 s in bin 45).
  <name>.txt            a flavor trace: lines "T f,f,|,f,|,...": T integer seconds from the
                        trace start, non-decreasing (also across the traces of one ingest);
                        then the flavors (letters of flav_map.txt) of the VMs that arrived in
                        (previous T, T], each batch closed by "|". A line "T" alone is a bin
                        without arrivals.
  <name>.c<N>.txt       the duration trace of <name>.txt, censored at N s: the same lines
                        token for token, with U<k> (finished; lifetime in bin k) or C<k>
                        (still running at N; age N - T in bin k) in place of each flavor.
PATH is the folder (not walked recursively: flav_map.txt, the interval map, every
*.train.txt, *.dev.txt, *.test.txt and their duration traces; other files are ignored) or
files. Given files, a map not among them is taken from the first flavor trace's folder, and
a flavor trace loads with its duration trace only if that is given too. batch_size_map.txt
is refused: deployment sizes are the batches themselves. Traces load in the order of their
first T (train, dev, test).

Tables (the split is the flavor trace's name after its last dot, e.g. "dev" for v1.dev.txt):
  vm_type one per flav_map.txt line: vm_type "<letter>-c<vCPUs>m<GB>" (e.g. a-c1m0.75), cores,
          memory_gb; family NULL.
  vm      one per flavor token, vm_id dense in load order; tenant "<split>-b<line>-<k>" (the
          k-th batch of that line, a deployment: the trace has no tenant or subscription
          across bins, so subscription is NULL and the deployment stands in for both);
          name "<tenant>-<j>" (its j-th VM); priority 0; start_s = T (the VM arrived in
          (previous T, T]).
          With a duration trace: U<k>: end_s = start_s + the midpoint of the bin's durations
          that fit before the censor time, (lo_k + min(hi_k, N - T))/2 — exactly the trace's
          duration for the one-value bins (0 to 3600 s in the published map). Resource
          Central's lifetime buckets (<= 15 min, <= 1 h, <= 1 day, longer) have their edges
          on bin edges (900, 3600 and 86400 s each end a bin of the published map), so a U
          VM's bucket is exact.
          C<k>: end_s NULL and a vm_censor row with observed_s = N (seen alive at the censor
          time: its lifetime exceeds N - T, which lies in bin k).
          Without one (the published train split): lifetimes are unknown, not censored. Such
          VMs get end_s NULL and a vm_censor row with observed_s = start_s: the trace only says
          they were alive on arrival. Use them for arrivals and deployment sizes, never as
          lifetime labels or for a replay (they would never leave).
The trace has no servers: give --inventory.
Rows read, loaded and rejected count flavor-trace lines (time bins); the vm table counts VMs.

Rejected (the whole line, as *RowError naming the file, the line as "row" and the token as
"field token <position>", 1-based among the line's comma-separated tokens): a time that is not
an integer, negative, beyond ±30 years (MaxTraceSeconds) or before the previous line's; an
empty batch ("|,|" or a line starting with "|"); an empty token (a trailing comma); a last
batch without its "|"; an unknown flavor; a duration that is not U or C followed by a bin
index; a bin beyond K; a U whose bin starts after N - T (it could not have finished by N); a
C whose bin does not hold N - T; a line of a trace after its censor time; and any difference
between a flavor line and its duration line (ErrTraceMismatch). A bad line in either map, a
duration trace without its flavor trace, two traces of the same split, and duration and
flavor traces of different lengths fail the ingest.`,
		Load: loadAzureFlavor,
	})
}

// flavorBatchSep closes a batch (one tenant's deployment in a time bin).
const flavorBatchSep = "|"

// flushEveryVMs bounds the rows DuckDB's appender holds in memory.
const flushEveryVMs = 1 << 19

// Input file names of the published trace (INPUT.md).
var (
	flavDurationName = regexp.MustCompile(`^(.*)\.c([0-9]+)\.txt$`)
	flavSplitName    = regexp.MustCompile(`\.(train|dev|test)\.txt$`)
)

const (
	flavMapSuffix      = "flav_map.txt"
	flavIntervalSuffix = "interval_map.txt"
	flavBatchSizeMap   = "batch_size_map.txt"
)

// flavorSplit is one flavor trace and its optional duration trace.
type flavorSplit struct {
	split    string // name after the last dot: train, dev, test
	flavor   string
	duration string // "" when absent
	censor   int64  // N of the duration trace's name
	first    int64  // its first line's time, for ordering
}

type flavorInputs struct {
	flavMap, intervalMap string
	splits               []*flavorSplit
}

// flavorFileName is a name without .gz, lower-cased, for matching.
func flavorFileName(p string) string {
	return strings.TrimSuffix(strings.ToLower(filepath.Base(p)), ".gz")
}

// findFlavorInputs sorts PATH arguments into the maps and the flavor and
// duration traces, pairing each duration trace with its flavor trace.
func findFlavorInputs(paths []string) (*flavorInputs, error) {
	in := &flavorInputs{}
	var flavors, durations []string
	setMap := func(dst *string, p, what string) error {
		if *dst != "" && *dst != p {
			return &RowError{File: p, Err: fmt.Errorf("%w: a second %s (first: %s)", ErrDuplicateID, what, *dst)}
		}
		*dst = p
		return nil
	}
	classify := func(p string, inFolder bool) error {
		name := flavorFileName(p)
		switch {
		case strings.HasSuffix(name, flavMapSuffix):
			return setMap(&in.flavMap, p, "flavor map")
		case strings.HasSuffix(name, flavIntervalSuffix):
			return setMap(&in.intervalMap, p, "interval map")
		case name == flavBatchSizeMap:
			if inFolder {
				return nil
			}
			return &RowError{File: p, Err: fmt.Errorf("%w: batch_size_map.txt is not an input (deployment sizes are the batches themselves)", ErrMalformed)}
		case flavDurationName.MatchString(name):
			durations = append(durations, p)
		case !inFolder || flavSplitName.MatchString(name):
			flavors = append(flavors, p)
		}
		return nil
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, &RowError{File: p, Err: errors.New("no such file")}
		}
		if !st.IsDir() {
			if err := classify(p, false); err != nil {
				return nil, err
			}
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, &RowError{File: p, Err: err}
		}
		n := len(flavors)
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			if err := classify(filepath.Join(p, e.Name()), true); err != nil {
				return nil, err
			}
		}
		if len(flavors) == n {
			return nil, &RowError{File: p, Err: fmt.Errorf("%w: no flavor trace (*.train.txt, *.dev.txt, *.test.txt) in this folder", ErrMissingField)}
		}
	}
	if len(flavors) == 0 {
		return nil, &RowError{File: strings.Join(paths, ","), Err: fmt.Errorf("%w: no flavor trace among the inputs", ErrMissingField)}
	}
	// Pair by folder and stem: v1.dev.c2100000.txt belongs to v1.dev.txt.
	key := func(p, stem string) string { return filepath.Join(filepath.Dir(p), stem) }
	byKey := map[string]*flavorSplit{}
	bySplit := map[string]string{}
	for _, p := range flavors {
		stem := strings.TrimSuffix(flavorFileName(p), ".txt")
		k := key(p, stem)
		if prev, dup := byKey[k]; dup {
			return nil, &RowError{File: p, Err: fmt.Errorf("%w: flavor trace given twice (also %s)", ErrDuplicateID, prev.flavor)}
		}
		split := stem[strings.LastIndexByte(stem, '.')+1:]
		if prev, dup := bySplit[split]; dup {
			return nil, &RowError{File: p, Err: fmt.Errorf("%w: split %q also read from %s (tenant ids would collide)", ErrDuplicateID, split, prev)}
		}
		bySplit[split] = p
		s := &flavorSplit{split: split, flavor: p}
		byKey[k] = s
		in.splits = append(in.splits, s)
	}
	for _, p := range durations {
		m := flavDurationName.FindStringSubmatch(flavorFileName(p))
		s := byKey[key(p, m[1])]
		if s == nil {
			return nil, &RowError{File: p, Err: fmt.Errorf("%w: duration trace without its flavor trace %s.txt", ErrMissingField, m[1])}
		}
		if s.duration != "" {
			return nil, &RowError{File: p, Err: fmt.Errorf("%w: a second duration trace for %s (first: %s)", ErrDuplicateID, s.flavor, s.duration)}
		}
		n, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil || float64(n) > MaxTraceSeconds {
			return nil, &RowError{File: p, Field: "censor time", Value: m[2], Err: ErrTimeRange}
		}
		s.duration, s.censor = p, n
	}
	// Maps not given: beside the first flavor trace.
	dir := filepath.Dir(in.splits[0].flavor)
	for _, m := range []struct {
		dst  *string
		name string
	}{{&in.flavMap, flavMapSuffix}, {&in.intervalMap, "v1." + flavIntervalSuffix}} {
		if *m.dst != "" {
			continue
		}
		if p, ok := findBeside(dir, m.name); ok {
			*m.dst = p
			continue
		}
		return nil, &RowError{File: filepath.Join(dir, m.name), Err: fmt.Errorf("%w: not given and not beside %s", ErrMissingField, in.splits[0].flavor)}
	}
	return in, nil
}

// findBeside returns dir/name or dir/name.gz if either is a file; for the
// interval map, any *interval_map.txt in dir.
func findBeside(dir, name string) (string, bool) {
	for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, name+".gz")} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	if strings.HasSuffix(name, flavIntervalSuffix) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(flavorFileName(e.Name()), flavIntervalSuffix) {
				return filepath.Join(dir, e.Name()), true
			}
		}
	}
	return "", false
}

// flavor is one line of flav_map.txt.
type flavor struct {
	vmType     string
	cores, mem float64
}

// lineReader reads physical lines, counting them, without their line end.
type lineReader struct {
	src  *source
	sc   *bufio.Scanner
	line int64
}

func newLineReader(src *source) *lineReader {
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 1<<16), 1<<30)
	return &lineReader{src: src, sc: sc}
}

// next returns the next line (valid until the following call), or io.EOF.
func (r *lineReader) next() ([]byte, error) {
	if !r.sc.Scan() {
		if err := r.sc.Err(); err != nil {
			var re *RowError
			if errors.As(err, &re) {
				return nil, err
			}
			return nil, &RowError{File: r.src.name, Row: r.line + 1, Err: fmt.Errorf("%w: %v", ErrMalformed, err)}
		}
		return nil, io.EOF
	}
	r.line++
	return bytes.TrimSuffix(r.sc.Bytes(), []byte{'\r'}), nil
}

func (r *lineReader) errf(field, value string, err error) *RowError {
	return &RowError{File: r.src.name, Row: r.line, Field: field, Value: value, Err: err}
}

// readFlavMap reads "vCPUs,memoryGB letter" lines; blank lines are skipped.
func readFlavMap(path string) (map[string]flavor, []string, error) {
	src, err := openSource(path)
	if err != nil {
		return nil, nil, err
	}
	defer src.Close()
	r := newLineReader(src)
	out := map[string]flavor{}
	var order []string
	for {
		line, err := r.next()
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, err
		}
		f := strings.Fields(string(line))
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, nil, r.errf("", string(line), fmt.Errorf("%w: want \"vCPUs,memoryGB letter\"", ErrMalformed))
		}
		size, letter := f[0], f[1]
		if !isLetters(letter) {
			return nil, nil, r.errf("letter", letter, fmt.Errorf("%w: a flavor is named by letters", ErrMalformed))
		}
		cs, ms, ok := strings.Cut(size, ",")
		if !ok {
			return nil, nil, r.errf("", size, fmt.Errorf("%w: want \"vCPUs,memoryGB\"", ErrMissingField))
		}
		cores, err := positiveNumber(cs)
		if err != nil {
			return nil, nil, r.errf("vcpus", cs, err)
		}
		mem, err := positiveNumber(ms)
		if err != nil {
			return nil, nil, r.errf("memory", ms, err)
		}
		if _, dup := out[letter]; dup {
			return nil, nil, r.errf("letter", letter, ErrDuplicateID)
		}
		out[letter] = flavor{vmType: letter + "-c" + fnum(cores) + "m" + fnum(mem), cores: cores, mem: mem}
		order = append(order, letter)
	}
	if len(out) == 0 {
		return nil, nil, &RowError{File: path, Err: fmt.Errorf("%w: no flavors", ErrMissingField)}
	}
	return out, order, nil
}

func isLetters(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func positiveNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != v || v > 1e300 || v < -1e300 {
		return 0, ErrNotNumber
	}
	if v <= 0 {
		return 0, ErrNonPositive
	}
	return v, nil
}

// durationBins are the duration bins of an interval map: bin k < len(lo)-1
// holds the durations lo[k]..hi[k]; the last, one past the map's bins, holds
// lo[K] and up (hi[K] is -1: open).
type durationBins struct {
	lo, hi []int64
}

// open is the index of the open-ended bin.
func (b *durationBins) open() int { return len(b.lo) - 1 }

// holds says whether age (s) lies in bin k, read as [lo_k, lo_{k+1}) so that
// ages off the map's grid belong to exactly one bin too.
func (b *durationBins) holds(k int, age int64) bool {
	return age >= b.lo[k] && (k == b.open() || age < b.lo[k+1])
}

// readIntervalMap reads "seconds bin" lines: seconds strictly increasing from
// 0, bins starting at 0 and rising by at most 1 per line.
func readIntervalMap(path string) (*durationBins, error) {
	src, err := openSource(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	r := newLineReader(src)
	b := &durationBins{}
	var prevSec, step int64 = -1, 0
	for {
		line, err := r.next()
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		f := strings.Fields(string(line))
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, r.errf("", string(line), fmt.Errorf("%w: want \"seconds bin\"", ErrMalformed))
		}
		sec, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || float64(sec) > MaxTraceSeconds {
			return nil, r.errf("seconds", f[0], ErrNotNumber)
		}
		bin, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, r.errf("bin", f[1], ErrNotNumber)
		}
		switch {
		case prevSec < 0 && (sec != 0 || bin != 0):
			return nil, r.errf("", string(line), fmt.Errorf("%w: the map starts at \"0 0\"", ErrMalformed))
		case prevSec >= 0 && sec <= prevSec:
			return nil, r.errf("seconds", f[0], fmt.Errorf("%w: not above the previous line's %d", ErrMalformed, prevSec))
		case bin == len(b.lo)-1:
			b.hi[bin] = sec
		case bin == len(b.lo):
			b.lo, b.hi = append(b.lo, sec), append(b.hi, sec)
		default:
			return nil, r.errf("bin", f[1], fmt.Errorf("%w: bins go 0, 1, 2, ... in order (previous %d)", ErrMalformed, len(b.lo)-1))
		}
		if prevSec >= 0 {
			step = sec - prevSec
		}
		prevSec = sec
	}
	if step == 0 {
		return nil, &RowError{File: path, Err: fmt.Errorf("%w: an interval map needs at least two lines", ErrMissingField)}
	}
	b.lo, b.hi = append(b.lo, prevSec+step), append(b.hi, -1)
	return b, nil
}

// traceLine is one parsed line of a flavor or duration trace.
type traceLine struct {
	t      int64
	tokens [][]byte
}

// parseTraceLine splits "T tok,tok,|,..." and checks the batch structure:
// no empty token, no empty batch, the last batch closed.
func parseTraceLine(r *lineReader, line []byte, into *traceLine) error {
	ts, rest, _ := bytes.Cut(line, []byte{' '})
	t, err := strconv.ParseInt(string(ts), 10, 64)
	if err != nil {
		return r.errf("time", string(ts), fmt.Errorf("%w: want integer seconds", ErrNotNumber))
	}
	if t < 0 {
		return r.errf("time", string(ts), ErrNegative)
	}
	if float64(t) > MaxTraceSeconds {
		return r.errf("time", string(ts), ErrTimeRange)
	}
	into.t = t
	into.tokens = into.tokens[:0]
	if len(rest) == 0 {
		return nil
	}
	for { // a trailing comma leaves an empty last token
		i := bytes.IndexByte(rest, ',')
		if i < 0 {
			into.tokens = append(into.tokens, rest)
			break
		}
		into.tokens = append(into.tokens, rest[:i])
		rest = rest[i+1:]
	}
	inBatch := false
	for i, tok := range into.tokens {
		field := tokenField(i)
		switch {
		case len(tok) == 0:
			return r.errf(field, "", fmt.Errorf("%w: empty token (a doubled or trailing comma?)", ErrMalformed))
		case string(tok) == flavorBatchSep && !inBatch:
			return r.errf(field, flavorBatchSep, fmt.Errorf("%w: empty batch", ErrMalformed))
		case string(tok) == flavorBatchSep:
			inBatch = false
		default:
			inBatch = true
		}
	}
	if inBatch {
		last := len(into.tokens) - 1
		return r.errf(tokenField(last), string(into.tokens[last]), fmt.Errorf("%w: the last batch is not closed by %q", ErrMalformed, flavorBatchSep))
	}
	return nil
}

func tokenField(i int) string { return "token " + strconv.Itoa(i+1) }

// flavorLoader writes the rows of one ingest.
type flavorLoader struct {
	ctx     context.Context
	w       *store.Writer
	rej     rejecter
	flavors map[string]flavor
	bins    *durationBins
	vmID    int64
	lastT   int64  // the previous line's time, across traces
	lastAt  string // where it was read, for the error
	report  Progress
	base    int64
	total   int64
	pending []flavorVM
	name    []byte
}

// flavorVM is one VM of a line, held until the whole line checks out.
type flavorVM struct {
	vmType     string
	batch, j   int
	end        float64
	ended      bool
	observed   float64
	isObserved bool
}

func loadAzureFlavor(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
	in, err := findFlavorInputs(paths)
	if err != nil {
		return err
	}
	flavors, order, err := readFlavMap(in.flavMap)
	if err != nil {
		return err
	}
	bins, err := readIntervalMap(in.intervalMap)
	if err != nil {
		return err
	}
	for _, s := range in.splits {
		if s.first, err = firstTime(s.flavor); err != nil {
			return err
		}
	}
	sort.SliceStable(in.splits, func(i, j int) bool { return in.splits[i].first < in.splits[j].first })
	for _, letter := range order {
		f := flavors[letter]
		if err := w.Append("vm_type", f.vmType, nil, f.cores, f.mem, 0.0, 0.0, 0.0, 0.0); err != nil {
			return err
		}
	}
	l := &flavorLoader{ctx: ctx, w: w, rej: rejecter{w, opts.MaxRejects}, flavors: flavors, bins: bins,
		lastT: -1, report: opts.Progress}
	for _, s := range in.splits {
		l.total += fileSize(s.flavor) + fileSize(s.duration)
	}
	for _, s := range in.splits {
		if err := l.loadSplit(s); err != nil {
			return err
		}
	}
	return attachInventory(w, opts)
}

func fileSize(p string) int64 {
	if p == "" {
		return 0
	}
	return totalSize([]string{p})
}

// firstTime reads the time of a trace's first line (0 if it does not parse:
// the load reports that line).
func firstTime(path string) (int64, error) {
	src, err := openSource(path)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	r := newLineReader(src)
	line, err := r.next()
	if err == io.EOF {
		return 0, &RowError{File: path, Err: fmt.Errorf("%w: empty trace", ErrMissingField)}
	} else if err != nil {
		return 0, err
	}
	var tl traceLine
	if err := parseTraceLine(r, line, &tl); err != nil {
		return 0, nil
	}
	return tl.t, nil
}

// loadSplit reads one flavor trace, line by line in step with its duration
// trace if it has one.
func (l *flavorLoader) loadSplit(s *flavorSplit) error {
	fsrc, err := openSource(s.flavor)
	if err != nil {
		return err
	}
	defer fsrc.Close()
	fr := newLineReader(fsrc)
	var dsrc *source
	var dr *lineReader
	if s.duration != "" {
		if dsrc, err = openSource(s.duration); err != nil {
			return err
		}
		defer dsrc.Close()
		dr = newLineReader(dsrc)
	}
	tick := func() {
		if l.report == nil {
			return
		}
		done := l.base + fsrc.read.Load()
		if dsrc != nil {
			done += dsrc.read.Load()
		}
		l.report(done, l.total)
	}
	var fl, dl traceLine
	for {
		line, err := fr.next()
		if err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		if fr.line%1024 == 0 {
			if err := l.ctx.Err(); err != nil {
				return err
			}
			tick()
		}
		l.w.Counts.RowsRead++
		var dline []byte
		if dr != nil {
			if dline, err = dr.next(); err == io.EOF {
				return &RowError{File: s.duration, Row: fr.line, Err: fmt.Errorf("%w: it ends after %d lines, the flavor trace %s goes on", ErrTraceMismatch, dr.line, s.flavor)}
			} else if err != nil {
				return err
			}
		}
		if err := l.line(s, fr, line, &fl, dr, dline, &dl); err != nil {
			if err := l.rej.handle(err); err != nil {
				return err
			}
			continue
		}
		if err := l.write(s, fr.line, fl.t); err != nil {
			return err
		}
		l.w.Counts.RowsLoaded++
	}
	if dr != nil {
		if _, err := dr.next(); err == nil {
			return &RowError{File: s.duration, Row: dr.line, Err: fmt.Errorf("%w: it goes on after the flavor trace %s ends at line %d", ErrTraceMismatch, s.flavor, fr.line)}
		} else if err != io.EOF {
			return err
		}
	}
	tick()
	l.base += fsrc.size
	if dsrc != nil {
		l.base += dsrc.size
	}
	return nil
}

// line parses and checks one flavor line (and its duration line) into
// l.pending; nothing is written unless the whole line is good.
func (l *flavorLoader) line(s *flavorSplit, fr *lineReader, line []byte, fl *traceLine, dr *lineReader, dline []byte, dl *traceLine) error {
	l.pending = l.pending[:0]
	if err := parseTraceLine(fr, line, fl); err != nil {
		return err
	}
	if fl.t < l.lastT {
		return fr.errf("time", strconv.FormatInt(fl.t, 10), fmt.Errorf("%w: before the previous line's %d (%s)", ErrMalformed, l.lastT, l.lastAt))
	}
	batch, j := 1, 0
	for i, tok := range fl.tokens {
		if string(tok) == flavorBatchSep {
			batch, j = batch+1, 0
			continue
		}
		f, ok := l.flavors[string(tok)]
		if !ok {
			return fr.errf(tokenField(i), string(tok), fmt.Errorf("%w: not in the flavor map", ErrUnknownType))
		}
		j++
		vm := flavorVM{vmType: f.vmType, batch: batch, j: j}
		if dr == nil {
			vm.observed, vm.isObserved = float64(fl.t), true
		}
		l.pending = append(l.pending, vm)
	}
	if dr != nil {
		if err := l.durations(s, fl, dr, dline, dl); err != nil {
			return err
		}
	}
	l.lastT, l.lastAt = fl.t, fmt.Sprintf("%s line %d", s.flavor, fr.line)
	return nil
}

// durations matches a duration line against its flavor line and sets each
// pending VM's end or censoring.
func (l *flavorLoader) durations(s *flavorSplit, fl *traceLine, dr *lineReader, dline []byte, dl *traceLine) error {
	if err := parseTraceLine(dr, dline, dl); err != nil {
		return err
	}
	if dl.t != fl.t {
		return dr.errf("time", strconv.FormatInt(dl.t, 10), fmt.Errorf("%w: the flavor line has time %d", ErrTraceMismatch, fl.t))
	}
	if dl.t > s.censor {
		return dr.errf("time", strconv.FormatInt(dl.t, 10), fmt.Errorf("%w: after the censor time %d", ErrMalformed, s.censor))
	}
	n := min(len(fl.tokens), len(dl.tokens))
	for i := 0; i < n; i++ {
		if (string(fl.tokens[i]) == flavorBatchSep) != (string(dl.tokens[i]) == flavorBatchSep) {
			return dr.errf(tokenField(i), string(dl.tokens[i]), fmt.Errorf("%w: the flavor trace has %q here", ErrTraceMismatch, fl.tokens[i]))
		}
	}
	if len(fl.tokens) != len(dl.tokens) {
		return dr.errf(tokenField(n), "", fmt.Errorf("%w: %d tokens, the flavor line has %d", ErrTraceMismatch, len(dl.tokens), len(fl.tokens)))
	}
	age := s.censor - dl.t
	v := 0
	for i, tok := range dl.tokens {
		if string(tok) == flavorBatchSep {
			continue
		}
		field := tokenField(i)
		if len(tok) < 2 || (tok[0] != 'U' && tok[0] != 'C') {
			return dr.errf(field, string(tok), fmt.Errorf("%w: want U<bin> or C<bin>", ErrMalformed))
		}
		k, err := strconv.Atoi(string(tok[1:]))
		if err != nil || tok[1] < '0' || tok[1] > '9' {
			return dr.errf(field, string(tok), fmt.Errorf("%w: the bin index is not a number", ErrMalformed))
		}
		if k > l.bins.open() {
			return dr.errf(field, string(tok), fmt.Errorf("%w: bin %d beyond the interval map (bins 0..%d, %d open-ended)", ErrMalformed, k, l.bins.open(), l.bins.open()))
		}
		vm := &l.pending[v]
		v++
		lo := l.bins.lo[k]
		if tok[0] == 'C' {
			if !l.bins.holds(k, age) {
				return dr.errf(field, string(tok), fmt.Errorf("%w: at the censor time %d the VM's age %d s is not in bin %d", ErrMalformed, s.censor, age, k))
			}
			vm.observed, vm.isObserved = float64(s.censor), true
			continue
		}
		if lo > age {
			return dr.errf(field, string(tok), fmt.Errorf("%w: bin %d starts at %d s, but the VM had to finish within %d s (censor time %d)", ErrMalformed, k, lo, age, s.censor))
		}
		hi := l.bins.hi[k]
		if hi < 0 || hi > age {
			hi = age
		}
		vm.end, vm.ended = float64(dl.t)+float64(lo+hi)/2, true
	}
	return nil
}

// write appends the pending VMs of a good line.
func (l *flavorLoader) write(s *flavorSplit, line, t int64) error {
	for _, vm := range l.pending {
		tenant := l.name[:0]
		tenant = append(tenant, s.split...)
		tenant = append(tenant, "-b"...)
		tenant = strconv.AppendInt(tenant, line, 10)
		tenant = append(tenant, '-')
		tenant = strconv.AppendInt(tenant, int64(vm.batch), 10)
		nt := len(tenant)
		name := append(tenant, '-')
		name = strconv.AppendInt(name, int64(vm.j), 10)
		l.name = name
		var end any
		if vm.ended {
			end = vm.end
		}
		if err := l.w.Append("vm", l.vmID, string(name), string(name[:nt]), nil, vm.vmType, int16(0),
			float64(t), end, nil, nil, nil, nil, nil); err != nil {
			return err
		}
		if vm.isObserved {
			if err := l.w.Append("vm_censor", l.vmID, vm.observed); err != nil {
				return err
			}
		}
		l.vmID++
		if l.vmID%flushEveryVMs == 0 {
			if err := l.w.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}
