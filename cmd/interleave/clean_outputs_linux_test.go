package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/netproxy"
)

// TestCleanSweepsOutputLeftovers (issue 19 items 5 and 6): clean lists
// (--dry-run) and removes a proxy capture's working file that no process
// holds open (what a kill -9 of interleave proxy leaves) and an export's
// staging directory that lost its owner record; it keeps the working file
// of a proxy still recording, a staging directory changed in the last
// minute, and files that only look like them.
func TestCleanSweepsOutputLeftovers(t *testing.T) {
	dir := t.TempDir()
	w, err := capture.NewProxyWriter(filepath.Join(dir, "x.capture"), capture.ProxyHeader{}, capture.ProxyWriterOptions{FlushEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Bytes(0, netproxy.ClientToServer, []byte("\x00\x00\x00\x12\x00\x03\x00\x00user\x00bob\x00\x00"))
	live := w.WorkingFile()
	var data []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if h, _, err := capture.ReadProxyFile(live); err == nil && h.Partial {
			data, _ = os.ReadFile(live)
			break
		}
	}
	if data == nil {
		t.Fatal("the working file was never readable")
	}
	// A working file whose proxy was killed: nobody holds it open.
	dead := filepath.Join(dir, ".y.capture.partial-123")
	os.WriteFile(dead, data, 0o600)
	// Another user's, as root can make it (CI runs as root): kept.
	others := filepath.Join(dir, ".z.capture.partial-321")
	os.WriteFile(others, data, 0o600)
	if os.Geteuid() == 0 {
		if err := os.Chown(others, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Minute)
	staging := filepath.Join(dir, ".bundle.tmp-456")
	young := filepath.Join(dir, ".young.tmp-789")
	for _, d := range []string{staging, young} {
		os.MkdirAll(filepath.Join(d, "src"), 0o700)
		os.WriteFile(filepath.Join(d, "artifact.json"), []byte("{}"), 0o600)
	}
	for _, p := range []string{filepath.Join(staging, "src"), filepath.Join(staging, "artifact.json"), staging} {
		os.Chtimes(p, old, old)
	}
	bystanders := []string{filepath.Join(dir, ".notes.partial-1"), filepath.Join(dir, ".other.tmp-1")}
	os.WriteFile(bystanders[0], []byte("not a capture"), 0o600)
	os.Mkdir(bystanders[1], 0o700)

	dry := execute(t, cleanCommand(), dir, "--dry-run")
	for _, want := range []string{"would remove " + dead, "would remove " + staging, "kept " + live, "holds it open", "kept " + young} {
		if !strings.Contains(dry, want) {
			t.Errorf("clean --dry-run does not say %q:\n%s", want, dry)
		}
	}
	for _, p := range append([]string{dead, staging, live, young}, bystanders...) {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("clean --dry-run removed %s", p)
		}
		if strings.Contains(dry, p+" ") && (p == bystanders[0] || p == bystanders[1]) {
			t.Errorf("clean --dry-run lists the bystander %s", p)
		}
	}
	var js CleanJSON
	if err := json.Unmarshal([]byte(execute(t, cleanCommand(), dir, "--dry-run", "--json")), &js); err != nil {
		t.Fatal(err)
	}
	removed := map[string]bool{}
	for _, r := range js.Removed {
		removed[r.Path] = true
	}
	if !removed[dead] || !removed[staging] || removed[live] || removed[young] {
		t.Errorf("clean --dry-run --json removes %v", js.Removed)
	}

	got := execute(t, cleanCommand(), dir)
	for _, p := range []string{dead, staging} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("clean left %s:\n%s", p, got)
		}
	}
	for _, p := range append([]string{live, young}, bystanders...) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("clean removed %s:\n%s", p, got)
		}
	}
	if _, err := os.Lstat(others); (err != nil) != (os.Geteuid() != 0) {
		t.Errorf("another user's working file: %v (euid %d)\n%s", err, os.Geteuid(), got)
	}
	if os.Geteuid() == 0 && !strings.Contains(got, "belongs to uid 65534, not to this user") {
		t.Errorf("clean does not say whose working file it kept:\n%s", got)
	}
}
