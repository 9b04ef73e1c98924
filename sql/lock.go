package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// ErrLocked reports a database file that another process holds: DuckDB lets
// one process write a file, or any number of processes read it read-only,
// never both (https://duckdb.org/docs/stable/connect/concurrency).
var ErrLocked = errors.New("store: database in use")

// LockError is ErrLocked with the process that holds the file's lock, as
// DuckDB names it ("Conflicting lock is held in PROGRAM (PID N)").
type LockError struct {
	Path    string
	PID     int    // 0 when DuckDB's message names none
	Program string // the holder's executable, as DuckDB names it
	// Command is the holder's command line (from /proc; "" when it cannot
	// be read, e.g. another user's process or another OS).
	Command string
	// ReadOnly: the open that failed asked for read-only access.
	ReadOnly bool
	Err      error // DuckDB's error
}

func (e *LockError) Error() string {
	who := "another process"
	switch {
	case e.Command != "" && e.PID > 0:
		who = fmt.Sprintf("PID %d (%s)", e.PID, e.Command)
	case e.PID > 0:
		who = fmt.Sprintf("PID %d (%s)", e.PID, e.Program)
	}
	mode := "write"
	if e.ReadOnly {
		mode = "read"
	}
	return fmt.Sprintf("%v: %s is locked by %s, so this process cannot %s it", ErrLocked, e.Path, who, mode)
}

func (e *LockError) Unwrap() []error { return []error{ErrLocked, e.Err} }

// lockHolder matches the holder in DuckDB's lock error.
var lockHolder = regexp.MustCompile(`Conflicting lock is held in (.*?) \(PID (\d+)\)`)

// asLockError turns DuckDB's "Could not set lock on file" error on path
// into a *LockError; other errors are returned as they are.
func asLockError(path string, readOnly bool, err error) error {
	if err == nil || !strings.Contains(err.Error(), "Could not set lock on file") {
		return err
	}
	le := &LockError{Path: path, ReadOnly: readOnly, Err: err}
	if m := lockHolder.FindStringSubmatch(err.Error()); m != nil {
		le.Program = m[1]
		le.PID, _ = strconv.Atoi(m[2])
		le.Command = commandLine(le.PID)
	}
	return le
}

// commandLine reads a process's command line from /proc ("" when it
// cannot).
func commandLine(pid int) string {
	if pid <= 0 {
		return ""
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return ""
	}
	args := strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00")
	return strings.Join(args, " ")
}
