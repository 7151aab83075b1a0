package main

import (
	"encoding/json"
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

// TestEveryCommandRefusesADamagedCapture: report, replay, export and trace
// refuse an artifact whose wire capture does not match its SHA-256, does
// not decode or declares 10^12 bytes, with exit 2 and the reason.
func TestEveryCommandRefusesADamagedCapture(t *testing.T) {
	data, err := os.ReadFile("../../artifact/testdata/counter-failure.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	c := m["capture"].(map[string]any)
	good := map[string]any{}
	for k, v := range c {
		good[k] = v
	}
	dir := t.TempDir()
	for _, d := range []struct {
		name, key string
		value     any
		want      string
	}{
		{"hash", "sha256", strings.Repeat("ab", 32), "does not match its SHA-256"},
		{"zstd", "data", "KLUv/QBYAAAAAAAAAAAA", "does not decode"},
		{"size", "size", 1e12, "declares 1000000000000 bytes"},
	} {
		for k, v := range good {
			c[k] = v
		}
		c[d.key] = d.value
		b, _ := json.Marshal(m)
		bad := filepath.Join(dir, d.name+".json")
		os.WriteFile(bad, b, 0o600)
		for _, args := range [][]string{
			{"report", bad, "--out", filepath.Join(dir, d.name+".html")},
			{"trace", bad},
			{"export", "../../examples/counter", bad, "--out", filepath.Join(dir, d.name+"-bundle")},
			{"replay", "../../examples/counter", bad},
		} {
			if args[0] == "replay" && d.name != "hash" {
				continue // one is enough: it builds and runs the program
			}
			out, code := runCaptured(t, args)
			if code != 2 || !strings.Contains(out, d.want) {
				t.Errorf("interleave %s with a damaged capture (%s): exit %d, want 2 saying %q\n%s", args[0], d.name, code, d.want, out)
			}
		}
	}
}

// runCaptured runs the CLI in-process with its stdout and stderr (and the
// scenario program's, which inherits them) captured.
func runCaptured(t *testing.T, args []string) (string, int) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = f, f
	code := run(args)
	os.Stdout, os.Stderr = stdout, stderr
	out, _ := os.ReadFile(f.Name())
	return string(out), code
}
