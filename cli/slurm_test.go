package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// slurmCluster is a one-node Slurm on localhost that a test started: munged,
// slurmctld and slurmd with their state under one temporary folder.
type slurmCluster struct {
	t    *testing.T
	dir  string
	conf string
	pids map[string]string // daemon → pid file
}

// requireSlurm skips (or, under PLACELAB_REQUIRE_SLURM, fails) when this
// machine cannot run a one-node Slurm.
func requireSlurm(t *testing.T) {
	t.Helper()
	need := os.Getenv("PLACELAB_REQUIRE_SLURM") != ""
	miss := func(why string) {
		if need {
			t.Fatalf("PLACELAB_REQUIRE_SLURM is set but %s (make test installs slurm-wlm and munge)", why)
		}
		t.Skip(why)
	}
	for _, b := range []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel", "sinfo"} {
		if _, err := exec.LookPath(b); err != nil {
			miss(b + " is not installed")
		}
	}
	if os.Geteuid() != 0 {
		miss("slurmd runs jobs as their user and must start as root")
	}
}

// freePort asks the kernel for a free TCP port.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startSlurm writes a slurm.conf for this host and starts the daemons; the
// test's cleanup stops every one of them by its pid and checks none is left.
func startSlurm(t *testing.T) *slurmCluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "placelab-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	c := &slurmCluster{t: t, dir: dir, conf: filepath.Join(dir, "slurm.conf"), pids: map[string]string{
		"munged": filepath.Join(dir, "munge", "munged.pid"), "slurmctld": filepath.Join(dir, "slurmctld.pid"), "slurmd": filepath.Join(dir, "slurmd.pid")}}
	t.Cleanup(c.stop)
	for _, d := range []string{"munge", "state", "spool", "log"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	f, err := os.Open("/dev/urandom")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Read(key); err != nil {
		t.Fatal(err)
	}
	f.Close()
	keyFile, sock := filepath.Join(dir, "munge", "munge.key"), filepath.Join(dir, "munge", "socket")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	c.must("munged", "--force", "--key-file="+keyFile, "--socket="+sock, "--pid-file="+c.pids["munged"],
		"--seed-file="+filepath.Join(dir, "munge", "seed"), "--log-file="+filepath.Join(dir, "munge", "log"))
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	conf := fmt.Sprintf(`ClusterName=placelabtest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SlurmdParameters=config_overrides
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/log/slurmctld.log
SlurmdLogFile=%[5]s/log/slurmd.log
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=3600
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[6]d State=UNKNOWN
PartitionName=placelab Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, freePort(t), freePort(t), sock, dir, runtime.NumCPU())
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c.must("slurmctld", "-f", c.conf)
	c.must("slurmd", "-f", c.conf, "-N", host)
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, _ := c.cmd("sinfo", "-h", "-o", "%T").CombinedOutput()
		if strings.TrimSpace(string(out)) == "idle" {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Slurm node did not come up (sinfo: %q); logs:\n%s", out, c.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (c *slurmCluster) logs() string {
	var b strings.Builder
	for _, f := range []string{"log/slurmctld.log", "log/slurmd.log", "munge/log"} {
		data, _ := os.ReadFile(filepath.Join(c.dir, f))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		b.WriteString("== " + f + "\n" + strings.Join(lines[max(0, len(lines)-15):], "\n") + "\n")
	}
	return b.String()
}

// cmd is a Slurm client command against this cluster.
func (c *slurmCluster) cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.conf)
	return cmd
}

func (c *slurmCluster) must(name string, args ...string) string {
	c.t.Helper()
	out, err := c.cmd(name, args...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("%s %s: %v\n%s\n%s", name, strings.Join(args, " "), err, out, c.logs())
	}
	return strings.TrimSpace(string(out))
}

// stop ends every daemon by its pid file, waits until each is gone and
// removes the folder.
func (c *slurmCluster) stop() {
	for _, d := range []string{"slurmd", "slurmctld", "munged"} {
		b, err := os.ReadFile(c.pids[d])
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 1 {
			continue
		}
		syscall.Kill(pid, syscall.SIGTERM)
		gone := false
		for i := 0; i < 100 && !gone; i++ {
			time.Sleep(50 * time.Millisecond)
			gone = syscall.Kill(pid, 0) != nil
		}
		if !gone {
			syscall.Kill(pid, syscall.SIGKILL)
			time.Sleep(100 * time.Millisecond)
			if syscall.Kill(pid, 0) == nil {
				c.t.Errorf("%s (pid %d) is still running", d, pid)
			}
		}
	}
	if out, _ := exec.Command("pgrep", "-f", c.dir).Output(); len(strings.TrimSpace(string(out))) > 0 {
		c.t.Errorf("processes left behind: %s", out)
	}
	os.RemoveAll(c.dir)
}

// jobState reads a job's state (COMPLETED, CANCELLED, ...).
func (c *slurmCluster) jobState(id string) string {
	out, _ := c.cmd("scontrol", "show", "job", "-o", id).CombinedOutput()
	for _, f := range strings.Fields(string(out)) {
		if v, ok := strings.CutPrefix(f, "JobState="); ok {
			return v
		}
	}
	return ""
}

// waitJob waits for every task of job id to end and returns the states.
func (c *slurmCluster) waitJob(id string) []string {
	c.t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		out, _ := c.cmd("scontrol", "show", "job", "-o", id).CombinedOutput()
		var states []string
		pending := false
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			for _, f := range strings.Fields(line) {
				if v, ok := strings.CutPrefix(f, "JobState="); ok {
					states = append(states, v)
					if v == "PENDING" || v == "RUNNING" || v == "CONFIGURING" || v == "COMPLETING" {
						pending = true
					}
				}
			}
		}
		if len(states) > 0 && !pending {
			return states
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("job %s still not done: %s\n%s", id, out, c.logs())
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// buildPlacelab builds the placelab binary that the Slurm tasks run.
func buildPlacelab(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "placelab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestSlurmSweep runs quick grids on a real one-node Slurm: placelab
// experiment --slurm --submit submits the job array and its afterok merge,
// whose merged figures equal a local run's. Then a sweep with one array
// task killed: the merge job is cancelled (its dependency can never be
// met), placelab merge refuses, naming the shard and the sbatch command that
// reruns it, and leaves the database unchanged; rerunning just that index
// completes the sweep. Every daemon the test started is stopped by its pid.
func TestSlurmSweep(t *testing.T) {
	requireSlurm(t)
	work := t.TempDir()
	bin := buildPlacelab(t, work)
	c := startSlurm(t)
	const names = "paragon,violations" // grids of 5 and 2 points: 5 shards
	placelab := func(db string, args ...string) (string, error) {
		cmd := c.cmd(bin, append([]string{"--quiet", "--db", db}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	ref := filepath.Join(work, "ref.duckdb")
	if out, err := placelab(ref, "experiment", names, "--quick", "--jobs", "1"); err != nil {
		t.Fatalf("local run: %v\n%s", err, out)
	}
	want := deterministicFigures(t, ref)

	// 1. The sweep as a user submits it.
	db1, dir1 := filepath.Join(work, "one.duckdb"), filepath.Join(work, "sweep1")
	out, err := placelab(db1, "experiment", names, "--quick", "--slurm", "--out", dir1, "--submit", "--format", "json")
	if err != nil {
		t.Fatalf("--slurm --submit: %v\n%s", err, out)
	}
	var sub struct {
		Array  string `json:"array_job"`
		Merge  string `json:"merge_job"`
		Shards int    `json:"shards"`
	}
	if err := json.Unmarshal([]byte(out), &sub); err != nil || sub.Array == "" || sub.Merge == "" || sub.Shards != 5 {
		t.Fatalf("--submit said %q (%v)", out, err)
	}
	for _, s := range c.waitJob(sub.Array) {
		if s != "COMPLETED" {
			t.Fatalf("array task %s\n%s", s, c.logs())
		}
	}
	if s := c.waitJob(sub.Merge); len(s) != 1 || s[0] != "COMPLETED" {
		log, _ := os.ReadFile(filepath.Join(dir1, "logs", "merge.out"))
		t.Fatalf("merge job %v: %s", s, log)
	}
	if got := deterministicFigures(t, db1); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Slurm sweep and local run differ:\n%s\n---\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// 2. One task killed.
	db2, dir2 := filepath.Join(work, "two.duckdb"), filepath.Join(work, "sweep2")
	if out, err := placelab(db2, "experiment", names, "--quick", "--slurm", "--out", dir2); err != nil {
		t.Fatalf("--slurm: %v\n%s", err, out)
	}
	script, mergeScript := filepath.Join(dir2, "shards.sbatch"), filepath.Join(dir2, "merge.sbatch")
	// Held, so that task 1 is killed before it can run.
	arr := c.must("sbatch", "--parsable", "--hold", script)
	merge := c.must("sbatch", "--parsable", "--dependency=afterok:"+arr, "--kill-on-invalid-dep=yes", mergeScript)
	c.must("scancel", arr+"_1")
	c.must("scontrol", "release", arr)
	c.waitJob(arr)
	if s := c.waitJob(merge); len(s) != 1 || s[0] != "CANCELLED" {
		t.Fatalf("the merge job after a failed task: %v", s)
	}
	before := runCount(t, db2)
	out, err = placelab(db2, "merge", dir2)
	if err == nil || !strings.Contains(out, "shard 1 of 5") || !strings.Contains(out, "sbatch --array=1 "+script) {
		t.Fatalf("merge with task 1 killed: %v\n%s", err, out)
	}
	if n := runCount(t, db2); n != before {
		t.Fatalf("the refused merge changed the database: %d runs, had %d", n, before)
	}
	// Rerunning just that index completes it.
	c.must("sbatch", "--wait", "--array=1", script)
	if out, err := placelab(db2, "merge", dir2); err != nil || !strings.Contains(out, "merged") {
		t.Fatalf("merge after the rerun: %v\n%s", err, out)
	}
	if got := deterministicFigures(t, db2); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rerun sweep and local run differ:\n%s\n---\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
