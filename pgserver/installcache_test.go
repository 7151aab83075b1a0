package pgserver

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pginterleave/interleave/pgserver/pginstall"
)

// A directory in the install cache that `interleave postgres install` did
// not leave there (here: a planted bin/ without the install's file list)
// is not used by discovery; before the check it was the first candidate.
func TestDiscoveryIgnoresAPlantedInstallTree(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "pg")
	bin := filepath.Join(cache, "99-linux-x64", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"initdb", "postgres"} {
		if err := os.WriteFile(filepath.Join(bin, n), []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := searchEnv{goos: "linux", root: t.TempDir(), caches: []string{cache}, platform: "linux-x64",
		getenv:   func(string) string { return "" },
		lookPath: func(string) (string, error) { return "", errors.New("not on PATH") }}
	if got := env.candidates(); len(got) != 1 || got[0].Dir != bin {
		t.Fatalf("without the check: %v; want the planted directory (what discovery did before)", got)
	}
	env.checkInstall = pginstall.Check
	if got := env.candidates(); len(got) != 0 {
		t.Fatalf("with pginstall.Check: %v; want the planted directory ignored", got)
	}
	if live := liveSearch(); live.checkInstall == nil {
		t.Fatal("the live discovery does not check install trees")
	}
}
