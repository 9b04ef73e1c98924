package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// holdEnv names the database file TestHoldLock holds when the test binary
// runs it as a helper process.
const holdEnv = "PLACELAB_TEST_HOLD_DB"

// TestHoldLock is not a test: run as a helper process (holdEnv set), it
// opens the file read-write, says "held", and keeps it until its stdin
// closes.
func TestHoldLock(t *testing.T) {
	path := os.Getenv(holdEnv)
	if path == "" {
		t.Skip("helper process for TestLockErrorNamesHolder")
	}
	db, err := Open(context.Background(), path)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("held")
	bufio.NewReader(os.Stdin).ReadString('\n')
	db.Close()
	os.Exit(0)
}

// holdLock starts a process that holds path read-write until the test ends.
func holdLock(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldLock$")
	cmd.Env = append(os.Environ(), holdEnv+"="+path)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "held" {
		t.Fatalf("helper did not take the lock: %q", line)
	}
	return cmd
}

// TestLockErrorNamesHolder is issue 32 item 4: a second process opening a
// file that a placelab process writes got DuckDB's raw lock message. The
// error is now ErrLocked, names the holder's PID and command line, and
// says whether this process wanted to read or write.
func TestLockErrorNamesHolder(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "busy.duckdb")
	db, err := Open(ctx, path) // created and migrated, so read-only opens are possible
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	holder := holdLock(t, path)
	for _, tc := range []struct {
		name     string
		open     func(context.Context, string, ...Option) (*DB, error)
		readOnly bool
	}{
		{"read-write", Open, false},
		{"read-only", OpenReadOnly, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := tc.open(ctx, path)
			if err == nil {
				db.Close()
				t.Fatal("opened a file another process holds")
			}
			var le *LockError
			if !errors.Is(err, ErrLocked) || !errors.As(err, &le) {
				t.Fatalf("error is not ErrLocked / *LockError: %v", err)
			}
			if le.PID != holder.Process.Pid || le.ReadOnly != tc.readOnly || le.Path != path {
				t.Errorf("LockError = {PID %d, ReadOnly %v, Path %s}, want {%d, %v, %s}", le.PID, le.ReadOnly, le.Path, holder.Process.Pid, tc.readOnly, path)
			}
			msg := err.Error()
			for _, want := range []string{path, fmt.Sprintf("PID %d", holder.Process.Pid), "TestHoldLock"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q: %s", want, msg)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message is not one line: %q", msg)
			}
		})
	}
}

// TestAsLockError: DuckDB's lock message with and without a holder, and
// errors that are not about a lock.
func TestAsLockError(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		pid       int
		program   string
		locked    bool
	}{
		{"with holder", `IO Error: Could not set lock on file "/x.duckdb": Conflicting lock is held in /usr/bin/placelab (PID 4242). See also https://duckdb.org/docs/stable/connect/concurrency`, 4242, "/usr/bin/placelab", true},
		{"program with spaces and parentheses", `IO Error: Could not set lock on file "/x.duckdb": Conflicting lock is held in /opt/my tools (v2)/placelab (PID 7). See also`, 7, "/opt/my tools (v2)/placelab", true},
		{"no holder named", `IO Error: Could not set lock on file "/x.duckdb": Resource temporarily unavailable`, 0, "", true},
		{"another error", `IO Error: Cannot open file "/x.duckdb": Permission denied`, 0, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := errors.New(tc.msg)
			err := asLockError("/x.duckdb", false, in)
			var le *LockError
			if got := errors.As(err, &le); got != tc.locked {
				t.Fatalf("lock error = %v, want %v (%v)", got, tc.locked, err)
			}
			if !tc.locked {
				if err != in {
					t.Errorf("a non-lock error was changed: %v", err)
				}
				return
			}
			if le.PID != tc.pid || le.Program != tc.program || !errors.Is(err, in) {
				t.Errorf("got PID %d program %q (wraps DuckDB's error: %v), want %d %q", le.PID, le.Program, errors.Is(err, in), tc.pid, tc.program)
			}
		})
	}
}

// TestReadOnlyUsesThisBuildsViews: a read-only open cannot install views,
// so it shadows the file's (the last read-write open's, maybe another
// build's) with this build's as TEMP views.
func TestReadOnlyUsesThisBuildsViews(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "views.duckdb")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, "CREATE OR REPLACE VIEW dataset_summary AS SELECT 'stale' AS name"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	res, err := ro.QueryView(ctx, "dataset_summary", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 || len(res.Columns) < 2 {
		t.Errorf("read-only dataset_summary = %v %v, want this build's view (no datasets), not the file's stale one", res.Columns, res.Rows)
	}
}
