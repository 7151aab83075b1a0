package supervise

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// GoWork puts the go command's work directory in a directory of its own,
// under a GOTMPDIR the caller set, and removes it.
func TestGoWorkKeepsTheCallersGOTMPDIRAsParent(t *testing.T) {
	parent := t.TempDir()
	cmd := exec.Command("go", "env", "GOTMPDIR")
	cmd.Env = append(os.Environ(), "GOTMPDIR="+parent)
	remove, err := GoWork(cmd)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimSpace(string(out))
	if filepath.Dir(dir) != parent || !strings.HasPrefix(filepath.Base(dir), "interleave-gowork-") {
		t.Fatalf("the go command's GOTMPDIR is %q, want an interleave-gowork- directory in %s", dir, parent)
	}
	remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s not removed: %v", dir, err)
	}
}
