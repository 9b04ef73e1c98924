package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	store "placelab/sql"
)

// holdEnv names the database file TestHoldDB holds when the test binary
// runs it as a helper process; holdModeEnv is "ro" to hold it read-only.
const (
	holdEnv     = "PLACELAB_TEST_HOLD_DB"
	holdModeEnv = "PLACELAB_TEST_HOLD_MODE"
)

// TestHoldDB is not a test: run as a helper process (holdEnv set), it opens
// the file (read-only with holdModeEnv=ro), says "held", and keeps it until
// its stdin closes.
func TestHoldDB(t *testing.T) {
	path := os.Getenv(holdEnv)
	if path == "" {
		t.Skip("helper process for TestDatabaseInUse")
	}
	open := store.Open
	if os.Getenv(holdModeEnv) == "ro" {
		open = store.OpenReadOnly
	}
	db, err := open(context.Background(), path)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("held")
	bufio.NewReader(os.Stdin).ReadString('\n')
	db.Close()
	os.Exit(0)
}

// holdDB starts a process that holds path (read-only when ro) until done
// is called or the test ends; it returns the process's PID.
func holdDB(t *testing.T, path string, ro bool) (pid int, done func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldDB$")
	cmd.Env = append(os.Environ(), holdEnv+"="+path)
	if ro {
		cmd.Env = append(cmd.Env, holdModeEnv+"=ro")
	}
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
	done = func() { in.Close(); cmd.Wait() }
	t.Cleanup(done)
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "held" {
		t.Fatalf("helper did not open %s: %q", path, line)
	}
	return cmd.Process.Pid, done
}

// TestDatabaseInUse is issue 32 item 4: while one placelab process wrote a
// file, another failed with DuckDB's lock message. It now says in one line
// which process holds the file and what to do; commands that only read
// (sql --view and --list, explain, export, report, characterize, check,
// whatif migrate and whatif drain with --no-store) open read-only, so they
// run beside each other. Commands that store something (ingest; whatif
// drain and migrate without --no-store, the plan's placement as a run;
// whatif policies, its
// replays as runs) still need the file to themselves.
func TestDatabaseInUse(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "busy.duckdb")
	good := write(t, dir, "hw.csv", "vmid,cpu,mem,at,lt\n0,4,16,0.0,194.0\n1,2,4,2.0,498.0\n")
	mustRun(t, db, "ingest", "huawei", good, "--dataset", "hw", "--inventory", "synthetic:4")
	mustRun(t, db, "replay", "--dataset", "hw")
	reads := [][]string{
		{"sql", "--view", "dataset_summary", "--format", "csv"},
		{"sql", "--list"},
		{"explain", "--run", "1", "--vm", "0"},
		{"export", "vm", "--to", filepath.Join(dir, "vm.csv")},
		{"report", "--out", filepath.Join(dir, "report")},
		{"characterize", "--out", filepath.Join(dir, "characterize")},
		{"check", "--run", "1"},
		{"whatif", "migrate", "--run", "1", "--no-store"},
		{"whatif", "drain", "--run", "1", "--no-store"},
	}
	writes := [][]string{
		{"ingest", "huawei", good, "--dataset", "hw2"},
		{"whatif", "drain", "--run", "1"},
		{"whatif", "migrate", "--run", "1"},
		{"whatif", "policies", "--run", "1", "--policies", "bestfit"},
	}

	t.Run("a writer holds it: one line naming the holder and what to do", func(t *testing.T) {
		pid, done := holdDB(t, db, false)
		defer done()
		for _, args := range append(append([][]string{}, reads...), writes...) {
			_, err := run(t, db, args...)
			if err == nil {
				t.Fatalf("placelab %s: ran on a file another process writes", strings.Join(args, " "))
			}
			msg := err.Error()
			for _, want := range []string{db, fmt.Sprintf("PID %d", pid), "TestHoldDB", "wait", "--db"} {
				if !strings.Contains(msg, want) {
					t.Errorf("placelab %s: message lacks %q: %s", strings.Join(args, " "), want, msg)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("placelab %s: message is not one line: %q", strings.Join(args, " "), msg)
			}
		}
	})

	t.Run("a reader holds it: readers run, a writer is told", func(t *testing.T) {
		pid, done := holdDB(t, db, true)
		defer done()
		for _, args := range reads {
			if _, err := run(t, db, args...); err != nil {
				t.Errorf("placelab %s beside another reader: %v", strings.Join(args, " "), err)
			}
		}
		for _, args := range writes {
			_, err := run(t, db, args...)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("PID %d", pid)) || !strings.Contains(err.Error(), "cannot write") || strings.Contains(err.Error(), "\n") {
				t.Errorf("placelab %s beside a reader: %v", strings.Join(args, " "), err)
			}
		}
	})
}
