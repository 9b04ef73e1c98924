package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

//go:embed schema/*.sql
var schemaFS embed.FS

//go:embed views/*.sql
var viewFS embed.FS

//go:embed queries/*.sql
var queryFS embed.FS

// DuckDBVersion is the DuckDB that github.com/duckdb/duckdb-go/v2, pinned
// in go.mod (v2.10506.0), embeds. The proxy's newer v2.20000.0 needs a
// library module it does not serve.
const DuckDBVersion = "v1.5.6"

// Sentinel errors.
var (
	ErrUnknownView  = errors.New("store: unknown view")
	ErrUnknownQuery = errors.New("store: unknown named query")
	ErrUnknownTable = errors.New("store: unknown table")
	ErrNewerSchema  = errors.New("store: database was written by a newer placelab")
)

// DB is an open placelab database.
type DB struct {
	sql       *sql.DB
	connector *duckdb.Connector
	path      string
	bulk      bulkRegistry
}

// settings applied to every connection: nothing may reach the network.
var connSettings = []string{
	"SET autoinstall_known_extensions = false",
	"SET autoload_known_extensions = false",
}

// Open opens (creating if needed) the DuckDB database at path — ":memory:"
// or "" for an in-memory database — migrates it to the latest schema and
// installs the views. Options set DuckDB's memory limit (MemoryLimit).
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	return open(ctx, path, 0, opts...)
}

// DefaultMemoryLimit bounds DuckDB's buffer pool for a database file when
// no MemoryLimit is given. DuckDB's own default, 80% of the machine's
// memory, lets the pool keep what a long write brings: a replay streams
// its placement rows into one transaction, and the process grew with the
// trace's length (a 10M-VM replay peaked at 2.8–3.1 GB of RSS, against
// about 2.6 GB under this bound). Under it DuckDB evicts and spills to
// the file's .tmp directory. The price is paid by a replay that stores
// explanations (three rows per VM): part of its commit's work moves into
// the replay, so its replay seconds rise while its wall time does not. An
// in-memory database keeps DuckDB's default: its tables live in the pool.
const DefaultMemoryLimit = "2GB"

// Option is a setting of Open and OpenReadOnly.
type Option func(*options) error

type options struct {
	memoryLimit string // "" : the default for the path
}

// MemoryLimit sets DuckDB's memory_limit, the bound of its buffer pool:
// a size CheckMemoryLimit accepts, or "" for the default
// (DefaultMemoryLimit for a file, DuckDB's for an in-memory database).
func MemoryLimit(v string) Option {
	return func(o *options) error {
		v = strings.TrimSpace(v)
		if err := CheckMemoryLimit(v); err != nil {
			return err
		}
		o.memoryLimit = v
		return nil
	}
}

// CheckMemoryLimit returns an error wrapping ErrBadOption unless v is ""
// (the default), "duckdb" (DuckDB's own default, 80% of the machine's
// memory) or a size above zero such as "1GB", "512MiB" or "2.5GB" (units
// B, KB, MB, GB, TB and KiB … TiB; spaces around it are ignored).
func CheckMemoryLimit(v string) error {
	v = strings.TrimSpace(v)
	if v == "" || strings.EqualFold(v, "duckdb") {
		return nil
	}
	m := memoryLimitRE.FindStringSubmatch(v)
	if m == nil {
		return fmt.Errorf("%w: memory limit %q: want a size such as 1GB, 512MiB or 2.5GB, or duckdb for DuckDB's default", ErrBadOption, v)
	}
	if n, err := strconv.ParseFloat(m[1], 64); err != nil || !(n > 0) {
		return fmt.Errorf("%w: memory limit %q: want a size above zero", ErrBadOption, v)
	}
	return nil
}

var memoryLimitRE = regexp.MustCompile(`(?i)^([0-9]+(?:\.[0-9]+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$`)

// ErrBadOption is returned by Open and OpenReadOnly for an option out of
// range.
var ErrBadOption = errors.New("store: bad option")

// settings returns the statements that apply opts to a connection of the
// database at path.
func settings(path string, opts []Option) ([]string, error) {
	var o options
	for _, f := range opts {
		if err := f(&o); err != nil {
			return nil, err
		}
	}
	limit := o.memoryLimit
	if limit == "" && !inMemory(path) {
		limit = DefaultMemoryLimit
	}
	if limit == "" || strings.EqualFold(limit, "duckdb") {
		return nil, nil
	}
	return []string{"SET memory_limit = '" + limit + "'"}, nil // checked by MemoryLimit: no quote
}

func inMemory(path string) bool { return path == "" || path == ":memory:" }

// ErrReadOnlyStale is returned by OpenReadOnly for a database whose schema
// is older than this build (a read-only open cannot migrate).
var ErrReadOnlyStale = errors.New("store: database needs a migration")

// OpenReadOnly opens an existing database file without writing to it, so
// that many processes can read it at once (DuckDB allows any number of
// read-only processes, or one writer). The file must exist and be at this
// build's schema version: open it once read-write (any placelab command)
// to migrate it first. Each connection shadows the file's views with this
// build's as TEMP views. Another process writing the file is a
// *LockError (ErrLocked).
func OpenReadOnly(ctx context.Context, path string, opts ...Option) (*DB, error) {
	if inMemory(path) {
		return nil, fmt.Errorf("store: open read-only: an in-memory database cannot be shared; give a file")
	}
	set, err := settings(path, opts)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("store: open read-only %s: %w", path, err)
	}
	db, err := connect(ctx, path, path+"?access_mode=read_only", append(set, tempViews()...)...)
	if err != nil {
		return nil, err
	}
	v, err := db.SchemaVersion(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open read-only %s: %w", path, err)
	}
	if v > LatestVersion() {
		db.Close()
		return nil, fmt.Errorf("%w: %s has schema version %d, this build knows %d", ErrNewerSchema, path, v, LatestVersion())
	}
	if v < LatestVersion() {
		db.Close()
		return nil, fmt.Errorf("%w: %s has schema version %d, this build %d: run any placelab command on it once (placelab --db %s sql --view dataset_summary) to migrate it",
			ErrReadOnlyStale, path, v, LatestVersion(), path)
	}
	return db, nil
}

// tempViews is this build's views as TEMP views, which a read-only
// connection creates for itself: they shadow the file's views, which the
// last read-write open installed and may be another build's.
func tempViews() []string {
	var out []string
	for _, name := range ViewNames() {
		q, _ := ViewSQL(name)
		out = append(out, strings.Replace(q, "CREATE OR REPLACE VIEW", "CREATE OR REPLACE TEMP VIEW", 1))
	}
	return out
}

// connect opens a connector on dsn with the session settings, then the
// statements of init on every connection.
func connect(ctx context.Context, path, dsn string, init ...string) (*DB, error) {
	connector, err := duckdb.NewConnector(dsn, func(ex driver.ExecerContext) error {
		for _, s := range append(slices.Clip(connSettings), init...) {
			if _, err := ex.ExecContext(ctx, s, nil); err != nil {
				return fmt.Errorf("store: %s: %w", s, err)
			}
		}
		return nil
	})
	if err != nil {
		if le := asLockError(path, strings.Contains(dsn, "access_mode=read_only"), err); le != err {
			return nil, le
		}
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return &DB{sql: sql.OpenDB(connector), connector: connector, path: path}, nil
}

// open migrates up to version upTo (0: latest); views are installed only
// at the latest version.
func open(ctx context.Context, path string, upTo int, opts ...Option) (*DB, error) {
	set, err := settings(path, opts)
	if err != nil {
		return nil, err
	}
	dsn := path
	if path == ":memory:" {
		dsn = ""
	}
	db, err := connect(ctx, path, dsn, set...)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, upTo); err != nil {
		db.Close()
		return nil, err
	}
	if upTo > 0 && upTo < LatestVersion() {
		return db, nil
	}
	if err := db.installViews(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// Before any transaction: a catalog entry is visible only to
	// transactions that start after it.
	if err := db.registerBulk(); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: register placelab_bulk: %w", err)
	}
	return db, nil
}

// SQL returns the database/sql handle, for queries.
func (d *DB) SQL() *sql.DB { return d.sql }

// Path is the file the database lives in ("" or ":memory:" when in memory).
func (d *DB) Path() string { return d.path }

// Close closes the database.
func (d *DB) Close() error { return d.sql.Close() }

// Migration is one numbered schema file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns the embedded migrations in version order.
func Migrations() []Migration {
	entries, err := fs.ReadDir(schemaFS, "schema")
	if err != nil {
		panic(err) // embedded at build time
	}
	var ms []Migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			panic("store: migration file without a number: " + name)
		}
		b, _ := schemaFS.ReadFile("schema/" + name)
		ms = append(ms, Migration{Version: v, Name: strings.TrimSuffix(name, ".sql"), SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms
}

// LatestVersion is the schema version this build writes.
func LatestVersion() int {
	ms := Migrations()
	return ms[len(ms)-1].Version
}

// Migrate applies pending migrations up to version upTo (0: all), each in
// its own transaction together with its schema_version row.
func (d *DB) Migrate(ctx context.Context, upTo int) error {
	if _, err := d.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version INTEGER PRIMARY KEY, name VARCHAR NOT NULL,
		applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)`); err != nil {
		return fmt.Errorf("store: schema_version: %w", err)
	}
	cur, err := d.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	if cur > LatestVersion() {
		return fmt.Errorf("%w: schema version %d, this build knows %d", ErrNewerSchema, cur, LatestVersion())
	}
	for _, m := range Migrations() {
		if m.Version <= cur || (upTo > 0 && m.Version > upTo) {
			continue
		}
		tx, err := d.sql.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: migration %s: %w", m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version, name) VALUES (?, ?)`, m.Version, m.Name); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: migration %s: %w", m.Name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store: migration %s: commit: %w", m.Name, err)
		}
	}
	return nil
}

// SchemaVersion is the highest migration applied (0 for a new database).
func (d *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := d.sql.QueryRowContext(ctx, `SELECT max(version) FROM schema_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: schema version: %w", err)
	}
	return int(v.Int64), nil
}

// ViewNames lists the embedded views.
func ViewNames() []string { return names(viewFS, "views") }

// QueryNames lists the embedded named queries.
func QueryNames() []string { return names(queryFS, "queries") }

func names(f embed.FS, dir string) []string {
	entries, _ := fs.ReadDir(f, dir)
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".sql"))
	}
	return out
}

// ViewSQL returns the CREATE VIEW statement of a view.
func ViewSQL(name string) (string, error) {
	b, err := viewFS.ReadFile(path.Join("views", name+".sql"))
	if err != nil {
		return "", fmt.Errorf("%w %q (known: %s)", ErrUnknownView, name, strings.Join(ViewNames(), ", "))
	}
	return string(b), nil
}

// Query returns the text of a named query.
func Query(name string) (string, error) {
	b, err := queryFS.ReadFile(path.Join("queries", name+".sql"))
	if err != nil {
		return "", fmt.Errorf("%w %q", ErrUnknownQuery, name)
	}
	return string(b), nil
}

// MustQuery is Query for names fixed in the code; it panics on a typo.
func MustQuery(name string) string {
	q, err := Query(name)
	if err != nil {
		panic(err)
	}
	return q
}

func (d *DB) installViews(ctx context.Context) error {
	for _, name := range ViewNames() {
		q, _ := ViewSQL(name)
		if _, err := d.sql.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("store: view %s: %w", name, err)
		}
	}
	return nil
}

// Tables lists the user tables of the schema, in creation order.
func (d *DB) Tables(ctx context.Context) ([]string, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY table_oid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// DatasetTables are the tables whose rows belong to a dataset, in the order
// a replacement deletes them.
var DatasetTables = []string{
	"ingest_warning", "k8s_object", "k8s_pod", "vm_constraint", "node_set_member", "node_set",
	"bpp_item", "bpp_instance", "app_run", "app_score", "demand_curve", "cpu_reading", "vm_censor",
	"vm", "vm_type_demand", "vm_type", "machine", "sku",
}
