package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pginterleave/interleave/artifact"
)

// facts is the one-line summary under the outcome: mode, search, replay or
// minimization, and the size of the schedule.
func facts(a *artifact.Artifact) []string {
	f := []string{"mode " + a.Mode, "exit code " + strconv.Itoa(a.Outcome.ExitCode)}
	released, prepares, waits := 0, 0, 0
	for _, u := range a.Units {
		if u.ReleaseStep >= 0 {
			released++
		}
		if u.Prepare {
			prepares++
		}
		if len(u.LockWaits) > 0 {
			waits++
		}
	}
	f = append(f, fmt.Sprintf("%d decisions, %d choices", len(a.Schedule.Decisions), len(a.Schedule.Choices)),
		fmt.Sprintf("%d units released (%d preparations)", released, prepares),
		fmt.Sprintf("%d lock waits", waits))
	if s := a.Search; s != nil {
		f = append(f, fmt.Sprintf("search %s: attempt %d of %d attempted, %d violations, stopped: %s", s.Strategy, s.Attempt+1, s.Attempted, s.Violations, s.StopReason))
	}
	if r := a.Replay; r != nil {
		kind := "exact"
		if r.Guided {
			kind = "guided"
		}
		f = append(f, fmt.Sprintf("%s replay of %s: followed %d of %d decisions", kind, r.Source, r.Followed, r.Of))
	}
	if m := a.Minimize; m != nil {
		f = append(f, fmt.Sprintf("minimized %s: %d choices reduced to %d in %d attempts", m.Source, m.ChoicesBefore, m.ChoicesAfter, m.Attempts))
	}
	if !a.CreatedAt.IsZero() {
		f = append(f, "recorded "+a.CreatedAt.UTC().Format(time.RFC3339))
	}
	if a.Outcome.FailureFingerprint != "" {
		f = append(f, "failure "+a.Outcome.FailureFingerprint)
	}
	return f
}

// results are the actors' return values and errors, as text.
func results(a *artifact.Artifact) []result {
	var r []result
	for _, x := range a.Actors {
		v := string(x.Value)
		if v == "" && x.Error == "" {
			v = "(no value)"
		}
		r = append(r, result{Actor: x.Actor, Value: v, Error: x.Error})
	}
	return r
}

// sections fills the environment, fingerprint and limits tables.
func sections(a *artifact.Artifact, d *pageData) {
	e := a.Environment
	d.Environment = nonEmpty([]kv{
		{"PostgreSQL", e.PostgresVersion},
		{"Server", e.Server},
		{"Go", e.GoVersion},
		{"Interleave", e.InterleaveVersion},
		{"Written by", strings.TrimSpace(a.Tool.Name + " " + a.Tool.Version)},
		{"Platform", strings.Trim(e.OS+"/"+e.Arch, "/")},
	})
	if f := a.Fingerprint; f != nil {
		fp := []kv{
			{"Server version", f.ServerVersion},
			{"Go", f.GoVersion},
			{"Interleave", f.Interleave},
			{"Sources", fmt.Sprintf("%d files (%s bytes)", len(f.Sources), thousands(size(f.Sources)))},
			{"Modules", names(f.Modules)},
			{"Settings", fmt.Sprintf("%d recorded", len(f.Settings))},
			{"Connections", fmt.Sprintf("%d", len(f.Connections))},
			{"Upstream TLS", strconv.FormatBool(f.UpstreamTLS)},
			{"Profiles", f.Profiles},
		}
		if db := f.Database; db != nil {
			fp = append(fp, kv{"Database hash", db.Hash})
			for k, n := range db.Objects {
				d.Objects = append(d.Objects, kv{k, strconv.Itoa(n)})
			}
			for k, v := range db.Parts {
				d.Parts = append(d.Parts, kv{k, v})
			}
		}
		for k, v := range f.Settings {
			d.Settings = append(d.Settings, kv{k, v})
		}
		d.Fingerprint = nonEmpty(fp)
	}
	for _, s := range [][]kv{d.Objects, d.Parts, d.Settings} {
		sort.Slice(s, func(i, j int) bool { return s[i].K < s[j].K })
	}
	l := a.Limits
	d.Limits = nonEmpty([]kv{
		{"Attempt timeout", ms(l.AttemptTimeoutMS)},
		{"Max attempts", count(l.MaxAttempts)},
		{"Max time", ms(l.MaxTimeMS)},
		{"Max depth", count(l.MaxDepth)},
		{"Connections", l.Connections},
		{"Protocol profile", l.ProtocolProfile},
		{"Overlap", l.Overlap},
		{"Wire capture", capture(a.Capture)},
		{"Cleanup", cleanup(a.Cleanup)},
	})
}

func nonEmpty(in []kv) []kv {
	var out []kv
	for _, x := range in {
		if x.V != "" {
			out = append(out, x)
		}
	}
	return out
}

func size(files []artifact.SourceFile) int64 {
	var n int64
	for _, f := range files {
		n += f.Size
	}
	return n
}

func names(files []artifact.SourceFile) string {
	var n []string
	for _, f := range files {
		n = append(n, f.Path)
	}
	return strings.Join(n, ", ")
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func ms(v int64) string {
	if v == 0 {
		return ""
	}
	return (time.Duration(v) * time.Millisecond).String()
}

func count(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

func capture(c *artifact.Capture) string {
	if c == nil {
		return "not kept"
	}
	return fmt.Sprintf("%s bytes (%s), sha256 %s", thousands(int64(c.Size)), c.Encoding, c.SHA256)
}

func cleanup(c artifact.Cleanup) string {
	s := fmt.Sprintf("databases dropped: %v; server stopped: %v", c.DatabasesDropped, c.ServerStopped)
	if c.Error != "" {
		s += "; " + c.Error
	}
	return s
}
