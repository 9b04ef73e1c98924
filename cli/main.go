// Command placelab keeps VM traces and server inventory in an embedded
// DuckDB file, characterizes workloads, replays traces through allocators
// and writes offline reports. Run `placelab --help` for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"

	"github.com/urfave/cli/v2"

	store "placelab/sql"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	app := newApp()
	if err := app.RunContext(ctx, interspersed(app, os.Args)); err != nil {
		fmt.Fprintln(os.Stderr, "placelab:", strings.TrimSpace(err.Error()))
		os.Exit(exitCode(err))
	}
}

func exitCode(err error) int {
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return 1
}

func newApp() *cli.App {
	app := &cli.App{
		Name:    "placelab",
		Usage:   "study cloud VM allocation: traces and inventory in DuckDB, allocators, bounds, reports",
		Version: version,
		Description: `placelab keeps VM traces and server inventory in one embedded DuckDB file
(--db, default placelab.duckdb), characterizes workloads with SQL views, replays traces
through Azure's Protean allocator and baselines, and writes offline HTML reports.

Typical session:
   placelab generate                      # the built-in synthetic zone and trace
   placelab ingest huawei ../shared/data/huawei-east-1/Huawei-East-1-lt.csv --inventory synthetic:200
   placelab sql --view dataset_summary
   placelab replay                        # Protean on the synthetic zone; a run id is printed
   placelab replay --policy bestfit --format json
   placelab replay --agents 8 --speedup 100
   placelab explain --run 1 --vm 4711
   placelab sql --view run_summary
   placelab report --out report           # report/index.html, works offline`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "db", Value: "placelab.duckdb", Usage: "DuckDB database `FILE` (\":memory:\" for a throwaway one)", EnvVars: []string{"PLACELAB_DB"}},
			&cli.StringFlag{Name: "memory-limit", Usage: "bound of DuckDB's buffer pool: a `SIZE` such as 1GB, 512MiB or 4GB, or duckdb for DuckDB's own (80% of RAM); default " + store.DefaultMemoryLimit + " for a database file, DuckDB's for :memory:. Past it DuckDB evicts blocks it has written and spills to FILE.tmp, so a long replay's memory does not grow with the rows it stores", EnvVars: []string{"PLACELAB_MEMORY_LIMIT"}},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output on stderr"},
			&cli.StringFlag{Name: "cpuprofile", Usage: "write a Go CPU profile of the command to `FILE` (go tool pprof)"},
		},
		Before: func(c *cli.Context) error {
			if f := c.String("cpuprofile"); f != "" {
				out, err := os.Create(f)
				if err != nil {
					return err
				}
				if err := pprof.StartCPUProfile(out); err != nil {
					return err
				}
			}
			return nil
		},
		After: func(c *cli.Context) error {
			if c.String("cpuprofile") != "" {
				pprof.StopCPUProfile()
			}
			return nil
		},
		Commands: []*cli.Command{
			generateCommand(),
			ingestCommand(),
			sqlCommand(),
			exportCommand(),
			reportCommand(),
			replayCommand(),
			checkCommand(),
			explainCommand(),
			benchCommand(),
			whatifCommand(),
			classifyCommand(),
			characterizeCommand(),
			lpboundCommand(),
			planCommand(),
			capacityCommand(),
			oversubCommand(),
			lifetimeCommand(),
			experimentCommand(),
			mergeCommand(),
			paragonCommand(),
			violationCommand(),
			predictCommand(),
		},
		EnableBashCompletion: true,
		// Errors, usage errors included, come back to main, which prints them
		// once and picks the exit code (urfave/cli would otherwise os.Exit).
		ExitErrHandler: func(*cli.Context, error) {},
	}
	for _, c := range app.Commands {
		requiredInAction(c, "placelab")
	}
	return app
}

// requiredInAction checks a command's required flags in its action, so
// that a missing one is one line naming it and the help to read, not the
// whole help (urfave/cli prints it before the error); the flags' usage
// says "(required)". Subcommands alike.
func requiredInAction(c *cli.Command, parent string) {
	path := parent + " " + c.Name
	for _, sub := range c.Subcommands {
		requiredInAction(sub, path)
	}
	var required []string
	for _, f := range c.Flags {
		rf, ok := f.(cli.RequiredFlag)
		if !ok || !rf.IsRequired() {
			continue
		}
		name := f.Names()[0]
		required = append(required, name)
		switch x := f.(type) {
		case *cli.StringFlag:
			x.Required, x.Usage = false, x.Usage+" (required)"
		case *cli.Int64Flag:
			x.Required, x.Usage = false, x.Usage+" (required)"
		case *cli.IntFlag:
			x.Required, x.Usage = false, x.Usage+" (required)"
		case *cli.StringSliceFlag:
			x.Required, x.Usage = false, x.Usage+" (required)"
		default:
			required = required[:len(required)-1] // left to urfave/cli
		}
	}
	if len(required) == 0 || c.Action == nil {
		return
	}
	action := c.Action
	c.Action = func(ctx *cli.Context) error {
		for _, name := range required {
			if !ctx.IsSet(name) {
				return fmt.Errorf("%s: --%s is required (%s --help)", path, name, path)
			}
		}
		return action(ctx)
	}
}

// openDB opens the --db database read-write, migrating it if it is older.
func openDB(c *cli.Context) (*store.DB, error) {
	db, err := store.Open(c.Context, c.String("db"), memoryLimit(c))
	return db, inUse(flagged(err))
}

// memoryLimit is --memory-limit as a store option.
func memoryLimit(c *cli.Context) store.Option { return store.MemoryLimit(c.String("memory-limit")) }

// flagged names --memory-limit in an error about it.
func flagged(err error) error {
	if errors.Is(err, store.ErrBadOption) {
		return fmt.Errorf("--memory-limit: %w", err)
	}
	return err
}

// openReadDB opens the --db database for a command that only reads it:
// read-only when the file exists at this build's schema, so that any
// number of such commands run beside each other (DuckDB allows many
// read-only processes or one writer); else as openDB does (creating or
// migrating the file, which needs write access once).
func openReadDB(c *cli.Context) (*store.DB, error) {
	path := c.String("db")
	if path == "" || path == ":memory:" {
		return openDB(c)
	}
	db, err := store.OpenReadOnly(c.Context, path, memoryLimit(c))
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, store.ErrReadOnlyStale) {
		return openDB(c)
	}
	return db, inUse(flagged(err))
}

// inUse adds what to do to a store.ErrLocked (another process holds the
// file), on the same line.
func inUse(err error) error {
	if !errors.Is(err, store.ErrLocked) {
		return err
	}
	return fmt.Errorf("%w; wait for it to finish, or give this command another file with --db FILE", err)
}
