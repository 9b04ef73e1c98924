package experiments

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	store "placelab/sql"
)

// Task is one grid point handed to a worker (a JSON line on its stdin).
type Task struct {
	Experiment string `json:"experiment"`
	Point      int    `json:"point"`
}

// Report is a worker's answer to a Task (a JSON line on its stdout).
type Report struct {
	Experiment string  `json:"experiment"`
	Point      int     `json:"point"`
	Seconds    float64 `json:"seconds"`
	Error      string  `json:"error,omitempty"`
}

// WorkerOptions configure one worker of placelab experiment --jobs.
type WorkerOptions struct {
	Quick   bool
	Version string
	// Dir receives the worker's Parquet files, NAME-job-K-of-N.parquet.
	Dir       string
	Job, Jobs int
	// Sweep names every experiment of the run (stored in each file).
	Sweep []string
}

// JobFile is the Parquet file worker job of jobs writes for experiment name.
func JobFile(dir, name string, job, jobs int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-job-%d-of-%d.parquet", name, job, jobs))
}

// Worker runs the Tasks read from in, one at a time, reading db (the
// user's database, opened read-only) and storing runs in a scratch
// database; it answers each with a Report on out. At the end of in it
// exports one Parquet file per experiment it ran into o.Dir. A failed point
// is reported, the points done before it are exported, and its error is
// returned.
func Worker(ctx context.Context, db *store.DB, o WorkerOptions, in io.Reader, out io.Writer) error {
	scratch, err := store.Open(ctx, ":memory:")
	if err != nil {
		return err
	}
	defer scratch.Close()
	outcomes := map[string]*Outcome{}
	var order []*Experiment
	enc := json.NewEncoder(out)
	sc := bufio.NewScanner(in)
	var runErr error
	for sc.Scan() {
		var t Task
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return fmt.Errorf("experiments: worker: bad task %q: %w", sc.Text(), err)
		}
		e, err := Lookup(t.Experiment)
		if err == nil {
			var oc *Outcome
			oc, err = Run(ctx, db, e, Options{Quick: o.Quick, Points: []int{t.Point}, Out: scratch, Version: o.Version,
				Placements: filepath.Join(o.Dir, PlacementsDir)})
			if err == nil {
				if outcomes[e.Name] == nil {
					outcomes[e.Name] = &Outcome{Experiment: e.Name, Grid: GridOf(o.Quick)}
					order = append(order, e)
				}
				acc := outcomes[e.Name]
				acc.Points += oc.Points
				acc.Runs = append(acc.Runs, oc.Runs...)
				if err := enc.Encode(Report{Experiment: t.Experiment, Point: t.Point, Seconds: oc.Seconds}); err != nil {
					return err
				}
				continue
			}
		}
		runErr = err
		enc.Encode(Report{Experiment: t.Experiment, Point: t.Point, Error: err.Error()})
		break
	}
	if err := sc.Err(); err != nil && runErr == nil {
		runErr = err
	}
	for _, e := range order {
		oc := outcomes[e.Name]
		if err := ExportShard(ctx, scratch, e, oc, len(e.Points(o.Quick)), fmt.Sprintf("job %d/%d", o.Job, o.Jobs), o.Sweep, JobFile(o.Dir, e.Name, o.Job, o.Jobs)); err != nil {
			return errors.Join(runErr, err)
		}
	}
	return runErr
}

// PoolOptions configure RunPool.
type PoolOptions struct {
	Jobs  int
	Quick bool
	// Spawn returns the command of worker job (0 ≤ job < Jobs): placelab
	// experiment --worker; RunPool sets its stdin and stdout.
	Spawn func(job int) (*exec.Cmd, error)
	// Progress is told points done out of the total after each point.
	Progress func(done, total int64)
	// OnReport is told each point's report.
	OnReport func(Report)
}

// RunPool runs the grids of exps in o.Jobs worker processes. Points go to
// whichever worker is free, so a slow point does not hold up a fixed
// share of the grid; the points of a timed experiment (Experiment.Timings)
// run alone, with every other worker idle, so their wall-clock figures are
// not measured on shared cores. The workers write their Parquet files
// (JobFile) for a merge; RunPool returns once every worker has exited.
func RunPool(ctx context.Context, exps []*Experiment, o PoolOptions) error {
	if o.Jobs < 1 {
		return fmt.Errorf("experiments: --jobs %d: want at least 1", o.Jobs)
	}
	type task struct {
		Task
		alone bool
	}
	var queue []task
	// Timed points first: they need the machine to themselves, which it is
	// at the start.
	for _, timed := range []bool{true, false} {
		for _, e := range exps {
			if e.Timed() != timed {
				continue
			}
			for _, p := range e.Points(o.Quick) {
				queue = append(queue, task{Task{e.Name, p.Index}, timed})
			}
		}
	}
	total := int64(len(queue))
	jobs := min(o.Jobs, len(queue))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type worker struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		busy  bool
	}
	// answer is a worker's report, or (exited) the end of its stdout.
	type answer struct {
		job    int
		rep    Report
		exited bool
	}
	answers := make(chan answer)
	workers := make([]*worker, jobs)
	var readers sync.WaitGroup
	var startErr error
	for k := range workers {
		cmd, err := o.Spawn(k)
		if err != nil {
			startErr = err
			break
		}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			startErr = err
			break
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			startErr = err
			break
		}
		if err := cmd.Start(); err != nil {
			startErr = fmt.Errorf("experiments: start worker %d: %w", k, err)
			break
		}
		workers[k] = &worker{cmd: cmd, stdin: stdin}
		readers.Add(1)
		go func(k int, r io.Reader) {
			defer readers.Done()
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				var rep Report
				if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
					rep.Error = fmt.Sprintf("worker %d said %q", k, sc.Text())
				}
				select {
				case answers <- answer{job: k, rep: rep}:
				case <-ctx.Done():
					return
				}
			}
			// The worker closed its stdout: it exited (after its last
			// answer, or without one if it died).
			select {
			case answers <- answer{job: k, exited: true}:
			case <-ctx.Done():
			}
		}(k, stdout)
	}
	stopAll := func() {
		for _, w := range workers {
			if w != nil {
				w.stdin.Close()
			}
		}
	}
	var firstErr error
	if startErr != nil {
		firstErr = startErr
	}
	var done int64
	if o.Progress != nil {
		o.Progress(0, total)
	}
	alive := 0
	for _, w := range workers {
		if w != nil {
			alive++
		}
	}
	aloneRunning, busy := false, 0
	dispatch := func() {
		for firstErr == nil && len(queue) > 0 && !aloneRunning {
			t := queue[0]
			if t.alone && busy > 0 {
				return
			}
			k := -1
			for i, w := range workers {
				if w != nil && !w.busy {
					k = i
					break
				}
			}
			if k < 0 {
				return
			}
			line, _ := json.Marshal(t.Task)
			if _, err := workers[k].stdin.Write(append(line, '\n')); err != nil {
				firstErr = fmt.Errorf("experiments: worker %d: %w", k, err)
				return
			}
			workers[k].busy = true
			busy++
			aloneRunning = t.alone
			queue = queue[1:]
		}
	}
	dispatch()
	if len(queue) == 0 || firstErr != nil {
		stopAll()
	}
	for alive > 0 {
		var a answer
		select {
		case a = <-answers:
		case <-ctx.Done():
			for _, w := range workers {
				if w != nil {
					w.cmd.Process.Kill()
					w.cmd.Wait()
				}
			}
			return ctx.Err()
		}
		w := workers[a.job]
		if a.exited {
			alive--
			if w.busy && firstErr == nil {
				firstErr = fmt.Errorf("experiments: worker %d exited during a point", a.job)
				stopAll()
			}
			continue
		}
		if w.busy {
			w.busy = false
			busy--
			aloneRunning = false
		}
		if a.rep.Error != "" {
			if firstErr == nil {
				firstErr = fmt.Errorf("experiments: %s point %d: %s", a.rep.Experiment, a.rep.Point, a.rep.Error)
			}
			stopAll()
			continue
		}
		done++
		if o.OnReport != nil {
			o.OnReport(a.rep)
		}
		if o.Progress != nil {
			o.Progress(done, total)
		}
		dispatch()
		if (len(queue) == 0 && busy == 0) || firstErr != nil {
			stopAll()
		}
	}
	readers.Wait()
	var waitErrs []string
	for k, w := range workers {
		if w == nil {
			continue
		}
		if err := w.cmd.Wait(); err != nil {
			waitErrs = append(waitErrs, fmt.Sprintf("worker %d: %v", k, err))
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if len(waitErrs) > 0 {
		return fmt.Errorf("experiments: %s", strings.Join(waitErrs, "; "))
	}
	if done != total {
		return fmt.Errorf("experiments: %d of %d points done", done, total)
	}
	return nil
}
