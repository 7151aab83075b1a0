package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsAreCheckedFirstAndPrivate: report and trace --pcap refuse an
// output they could not write before reading anything (a missing directory
// is never created), and what they write is private to its owner.
func TestOutputsAreCheckedFirstAndPrivate(t *testing.T) {
	art, _ := filepath.Abs("../../artifact/testdata/counter-failure.json")
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "dir")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"report", []string{art, "--out", filepath.Join(missing, "r.html")}},
		{"trace", []string{art, "--pcap", filepath.Join(missing, "c.pcapng")}},
	} {
		cmd := reportCommand()
		if c.name == "trace" {
			cmd = traceCommand()
		}
		cmd.SetArgs(c.args)
		cmd.SetOut(new(strings.Builder))
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), "does not exist; create it first") {
			t.Errorf("%s %v: %v", c.name, c.args, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Fatal("a missing directory was created")
	}
	html, pcap := filepath.Join(dir, "r.html"), filepath.Join(dir, "c.pcapng")
	execute(t, reportCommand(), art, "--out", html)
	execute(t, traceCommand(), art, "--pcap", pcap)
	for _, p := range []string{html, pcap} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v; want 0600 (it holds the recording's data)", filepath.Base(p), st.Mode().Perm())
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
