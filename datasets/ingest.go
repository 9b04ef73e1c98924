package datasets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	store "placelab/sql"
)

// Options are the knobs common to every loader.
type Options struct {
	// Dataset names the loaded data; re-ingesting a name replaces it.
	Dataset string
	// Inventory describes machines for traces that carry none: a synthetic
	// spec (synth.WriteInventory's grammar) or an inventory file of your own
	// fleet (InventoryFilePath, WriteInventoryFile). Empty: the format's
	// default.
	Inventory string
	// Seed for anything random a loader does (synthetic inventory).
	Seed int64
	// MaxRejects is how many bad rows may be skipped (counted with their
	// reason) before the ingest fails; 0 means the first bad row fails it.
	MaxRejects int64
	// Progress, if set, is called with bytes read and total bytes.
	Progress Progress
	// Version is placelab's version, recorded on an observed run.
	Version string
}

// Loader reads files of one format into the ingest's transaction.
type Loader func(ctx context.Context, w *store.Writer, paths []string, opts Options) error

// Format is a registered input format.
type Format struct {
	Name    string
	Summary string // one line for --help
	Help    string // what files it takes and how they map to tables
	Load    Loader
}

var formats = map[string]Format{}

func register(f Format) { formats[f.Name] = f }

// Formats lists the registered formats by name.
func Formats() []Format {
	out := make([]Format, 0, len(formats))
	for _, f := range formats {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns a format by name.
func Lookup(name string) (Format, error) {
	f, ok := formats[name]
	if !ok {
		var names []string
		for _, f := range Formats() {
			names = append(names, f.Name)
		}
		return Format{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownFormat, name, strings.Join(names, ", "))
	}
	return f, nil
}

// Ingest loads paths in the given format as one transaction.
func Ingest(ctx context.Context, db *store.DB, format string, paths []string, opts Options) (store.Counts, error) {
	f, err := Lookup(format)
	if err != nil {
		return store.Counts{}, err
	}
	if len(paths) == 0 {
		return store.Counts{}, fmt.Errorf("datasets: %s: no input files", format)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return store.Counts{}, &RowError{File: p, Err: errors.New("no such file")}
		}
	}
	if opts.Dataset == "" {
		opts.Dataset = format
	}
	params, _ := json.Marshal(map[string]any{"inventory": opts.Inventory, "seed": opts.Seed, "max_rejects": opts.MaxRejects})
	info := store.IngestInfo{Dataset: opts.Dataset, Format: format, Source: strings.Join(paths, ","), Params: string(params)}
	return db.Ingest(ctx, info, func(w *store.Writer) error {
		if err := f.Load(ctx, w, paths, opts); err != nil {
			return err
		}
		return warnNoRows(w, paths)
	})
}

// warnNoRows records WarnNoRows for an ingest that read no row, unless a
// loader already named the files that held none.
func warnNoRows(w *store.Writer, paths []string) error {
	if w.Counts.RowsRead > 0 || slices.ContainsFunc(w.Counts.Warnings, func(wa store.Warning) bool { return wa.Code == WarnNoRows }) {
		return nil
	}
	return w.Warn(store.Warning{Source: strings.Join(paths, ","), Code: WarnNoRows, Message: "0 rows: the input holds no data rows"})
}

// rejecter applies Options.MaxRejects: a row error is either counted as a
// rejection or returned.
type rejecter struct {
	w   *store.Writer
	max int64
}

// handle returns nil if the row error may be skipped, else the error
// (Skippable when it is a row error: a larger --max-rejects would skip it).
func (r rejecter) handle(err error) error {
	var re *RowError
	if !errors.As(err, &re) {
		return err
	}
	if r.w.Counts.RowsRejected >= r.max {
		if r.max > 0 {
			return skippable{fmt.Errorf("%w (%d allowed): %v", ErrTooManyRejects, r.max, err)}
		}
		return skippable{err}
	}
	r.w.Counts.Reject(re.Reason())
	return nil
}

// totalSize sums file sizes for progress.
func totalSize(paths []string) int64 {
	var t int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			t += st.Size()
		}
	}
	return t
}
