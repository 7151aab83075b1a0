package supervise

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// deadPid is the pid of a process that has ended.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func writeTestRecord(t *testing.T, dir string, rec Record) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeRecord(dir, rec); err != nil {
		t.Fatal(err)
	}
}

// A sweep removes only directories whose record is this user's, written
// here, by an owner that is dead; it never kills a process the record names
// unless it is still the process that was started; everything else stays.
func TestSweepTouchesOnlyWhatItOwns(t *testing.T) {
	base := t.TempDir()
	elsewhere := t.TempDir()
	dead := Process{PID: deadPid(t), Start: "1"}
	mine := func(owner Process, procs ...Process) Record {
		return Record{Version: 1, Host: hostname(), Namespace: namespaceID(), UID: os.Geteuid(), Owner: owner, Processes: procs}
	}
	// A live process the record names with another start time: someone
	// else's process that got the recorded pid. It must survive.
	bystanderProc := exec.Command("sleep", "1000")
	if err := bystanderProc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bystanderProc.Process.Kill(); _ = bystanderProc.Wait() })
	reused := Process{PID: bystanderProc.Process.Pid, Start: "not-its-start-time", Group: true}

	leftover := filepath.Join(base, "interleave-pg-leftover")
	writeTestRecord(t, leftover, mine(dead, reused))
	if err := os.WriteFile(filepath.Join(leftover, "postgres.log"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}

	keep := map[string]string{}
	add := func(name, why string, rec *Record) string {
		dir := filepath.Join(base, name)
		if rec != nil {
			writeTestRecord(t, dir, *rec)
		} else if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		keep[dir] = why
		return dir
	}
	add("interleave-pg-norecord", "no record", nil)
	live := mine(self())
	add("interleave-pg-live", "owner alive", &live)
	garbage := add("interleave-pg-garbage", "unreadable record", nil)
	if err := os.WriteFile(filepath.Join(garbage, RecordFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	otherHost := mine(dead)
	otherHost.Host = "some-other-host"
	add("interleave-pg-otherhost", "other host", &otherHost)
	otherNS := mine(dead)
	otherNS.Namespace = "pid:[1] boot:other"
	add("interleave-pg-otherns", "other namespace", &otherNS)
	deadRec := mine(dead)
	add("notinterleave-dir", "not an interleave- name", &deadRec)
	target := filepath.Join(elsewhere, "interleave-pg-target")
	writeTestRecord(t, target, mine(dead))
	if err := os.Symlink(target, filepath.Join(base, "interleave-pg-link")); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		foreign := add("interleave-pg-foreign", "record file of another user", &deadRec)
		if err := os.Chown(filepath.Join(foreign, RecordFile), 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}

	dry, err := Sweep(SweepOptions{Dirs: []string{base}, DryRun: true})
	if err != nil || len(dry.Removed) != 1 || dry.Removed[0].Path != leftover {
		t.Fatalf("dry run: %+v, %v", dry, err)
	}
	if _, err := os.Stat(leftover); err != nil {
		t.Fatalf("a dry run removed %s: %v", leftover, err)
	}

	res, err := Sweep(SweepOptions{Dirs: []string{base}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 1 || res.Removed[0].Path != leftover || len(res.Removed[0].Stopped) != 0 {
		t.Fatalf("removed %+v; want only %s, with nothing stopped", res.Removed, leftover)
	}
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Fatalf("%s is still there: %v", leftover, err)
	}
	for dir, why := range keep {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s (%s) was touched: %v", dir, why, err)
		}
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the sweep followed a symlink and removed %s: %v", target, err)
	}
	if syscall.Kill(bystanderProc.Process.Pid, 0) != nil || !Alive(bystanderProc.Process.Pid) {
		t.Error("the sweep killed a process whose start time does not match the record")
	}
	// The ones with a record of this user's are reported as kept, with why.
	reasons := map[string]string{}
	for _, k := range res.Kept {
		reasons[filepath.Base(k.Path)] = k.Reason
	}
	for _, name := range []string{"interleave-pg-live", "interleave-pg-otherhost", "interleave-pg-otherns"} {
		if reasons[name] == "" {
			t.Errorf("%s is not reported as kept with a reason: %+v", name, res.Kept)
		}
	}
}

// A directory made by MkdirTemp carries a record naming this process, and
// RemoveAll removes it.
func TestMkdirTempRecordsItsOwner(t *testing.T) {
	dir, err := MkdirTemp(t.TempDir(), "interleave-test-")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := readRecord(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Owner.PID != os.Getpid() || rec.Owner.Start == "" || !isRunning(rec.Owner) {
		t.Fatalf("record %+v does not name this running process", rec)
	}
	cmd := exec.Command("sleep", "1000")
	Prepare(cmd, StopWith(syscall.SIGTERM, time.Second), InDir(dir))
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	rec, _ = readRecord(dir, true)
	if len(rec.Processes) != 1 || rec.Processes[0].PID != cmd.Process.Pid || rec.Processes[0].Stop != int(syscall.SIGTERM) {
		t.Fatalf("the started process is not recorded: %+v", rec)
	}
	if err := KillTree(cmd); err != nil {
		t.Fatal(err)
	}
	if err := Wait(cmd); err == nil {
		t.Fatal("a killed sleep exited cleanly")
	}
	if err := RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s still exists", dir)
	}
}
