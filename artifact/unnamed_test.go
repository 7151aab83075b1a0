package artifact

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestWriteLeavesNothingNamedWhileWriting: while WriteFileAtomic writes,
// nothing but what was there has a name in the directory, so a kill -9
// in the middle leaves nothing behind to sweep (issue 19 item 6: report's
// temporary HTML, 30 MB, was left); with and without force the file then
// appears whole, private.
func TestWriteLeavesNothingNamedWhileWriting(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("unnamed files are Linux's O_TMPFILE")
	}
	for _, force := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "failure.html")
		if force {
			os.WriteFile(path, []byte("old"), 0o600)
		}
		called := false
		testHookWritten = func() {
			called = true
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != "failure.html" || !force {
					t.Errorf("force %v: %s has a name while the data is written", force, e.Name())
				}
			}
		}
		err := WriteFileAtomic(path, []byte("<html>"), force)
		testHookWritten = nil
		if err != nil || !called {
			t.Fatalf("force %v: %v (hook called %v)", force, err, called)
		}
		st, err := os.Stat(path)
		if b, _ := os.ReadFile(path); err != nil || string(b) != "<html>" || st.Mode().Perm() != 0o600 {
			t.Fatalf("force %v: wrote %q, mode %v (%v)", force, b, st.Mode(), err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Fatalf("force %v: the directory holds %v", force, entries)
		}
	}
}
