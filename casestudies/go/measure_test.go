package gostudies_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	gostudies "github.com/pginterleave/interleave/casestudies/go"
	"github.com/pginterleave/interleave/casestudies/go/gooseup"
	"github.com/pginterleave/interleave/casestudies/go/gormfirstorcreate"
	"github.com/pginterleave/interleave/casestudies/go/migrateversiontable"
	"github.com/pginterleave/interleave/casestudies/go/ternversiontable"
	"github.com/pginterleave/interleave/pgserver"
)

var (
	measure = flag.Bool("gostudies.measure", false, "run every measurement of docs/case-studies.md's Go section (use -timeout 2h)")
	trials  = flag.Int("gostudies.trials", 100, "with -gostudies.measure: trials of ordinary concurrency and of the start barrier")
	sweep   = flag.Int("gostudies.sweep", 50, "with -gostudies.measure: schedules of the racy variant explored past the first failure")
	depth   = flag.Int("gostudies.depth", -1, "with -gostudies.measure: the choice bound of the fixed variant's exhaustive search (0: every order; -1: the study's Bound)")
	parts   = flag.String("gostudies.parts", "interleave,goroutines,barrier,isolation", "with -gostudies.measure: which measurements to run")
	only    = flag.String("gostudies.study", "", "with -gostudies.measure: only the studies of these package directories, comma-separated (gooseup, migrateversiontable, gormfirstorcreate, ternversiontable)")
)

// studies are every Go case study with the directory of its isolation
// specs.
var studies = []struct {
	study *gostudies.Study
	dir   string
}{
	{gooseup.Study, "gooseup"},
	{migrateversiontable.Study, "migrateversiontable"},
	{gormfirstorcreate.Study, "gormfirstorcreate"},
	{ternversiontable.Study, "ternversiontable"},
}

// TestMeasure prints every number of docs/case-studies.md's Go section.
func TestMeasure(t *testing.T) {
	if !*measure {
		t.Skip("the measurements run with -gostudies.measure")
	}
	ctx := ctxFor(t, 2*time.Hour)
	m := &gostudies.Measurer{Server: server}
	binDir, err := pgserver.FindBinDir("")
	if err != nil {
		t.Fatal(err)
	}
	tester, err := gostudies.FindIsolationTester(binDir)
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	row := func(format string, args ...any) {
		fmt.Fprintf(&report, format+"\n", args...)
		t.Logf(format, args...)
	}
	for _, s := range studies {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), s.dir) {
			continue
		}
		st := s.study
		row("\n### %s (%s)\n", st.Name, st.Module)
		row("| measurement | %s (racy) | %s (safe) |", st.Racy.Label, st.Fixed.Label)
		row("|---|---|---|")
		if part("interleave") {
			exploreRows(t, m, st, row)
		}
		for _, start := range []gostudies.Start{gostudies.Goroutines, gostudies.Barrier} {
			if !part(start.String()) {
				continue
			}
			var cells []string
			for _, v := range st.Variants() {
				b, err := m.Baseline(ctx, v, *trials, start)
				if err != nil {
					t.Fatal(err)
				}
				cells = append(cells, fmt.Sprintf("%d of %d fail (%.0f ms per trial)%s", b.Failures, b.Trials, float64(b.PerTrial().Microseconds())/1000, messages(b.Messages)))
			}
			row("| %s, no Interleave | %s | %s |", startName(start), cells[0], cells[1])
		}
		if !part("isolation") {
			continue
		}
		var cells []string
		for _, kind := range []string{"racy", "fixed"} {
			iso, err := gostudies.RunIsolation(ctx, tester, server, filepath.Join(s.dir, "isolation", kind+".spec"))
			if err != nil {
				t.Fatal(err)
			}
			cells = append(cells, fmt.Sprintf("%d of %d permutations with an error%s", iso.WithError, iso.Permutations, messages(iso.Errors)))
		}
		row("| isolation tester, SQL transcribed (`%s/isolation/*.spec`) | %s | %s |", s.dir, cells[0], cells[1])
	}
	t.Log(report.String())
}

func part(name string) bool {
	for _, p := range strings.Split(*parts, ",") {
		if strings.TrimSpace(p) == name {
			return true
		}
	}
	return false
}

// exploreRows are Interleave's rows: the first failure of the racy
// variant, the exhaustive search of the fixed one, and a sweep of the racy
// variant past its first failure.
func exploreRows(t *testing.T, m *gostudies.Measurer, st *gostudies.Study, row func(string, ...any)) {
	ctx := ctxFor(t, time.Hour)
	first, err := m.Explore(ctx, st, st.Racy, 100, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	bound := st.Bound
	if *depth >= 0 {
		bound = *depth
	}
	fixed, err := m.Explore(ctx, st, st.Fixed, 2000, bound, false)
	if err != nil {
		t.Fatal(err)
	}
	note := map[string]int{}
	if fixed.Message != "" {
		note[fixed.Message] = 1
	}
	orders := "every order"
	if bound > 0 {
		orders = fmt.Sprintf("orders of up to %d choices (%d longer orders not run)", bound, fixed.PrunedByDepth)
	}
	row("| Interleave: first failure | attempt %d of budget 100 (%.1f s), exit %d | %s (exit %d), %s after %d attempts (%.1f s), %s%s |",
		first.FirstFailure, first.Elapsed.Seconds(), first.ExitCode, fixed.Outcome, fixed.ExitCode, fixed.Stop, fixed.Attempted, fixed.Elapsed.Seconds(), orders, messages(note))
	swept, err := m.Explore(ctx, st, st.Racy, *sweep, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	row("| Interleave: violations among explored schedules | %d of %d | %d of %d |", swept.Failures, swept.Attempted, fixed.Failures, fixed.Attempted)
	row("\nFirst failing order (racy):\n\n```\n%s\n```", strings.Join(first.Order, "\n"))
}

func startName(s gostudies.Start) string {
	if s == gostudies.Barrier {
		return "manual barrier: both goroutines released together"
	}
	return "ordinary concurrency: two goroutines"
}

// messages lists distinct failure messages with their counts, shortened.
func messages(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		short := strings.Join(strings.Fields(k), " ")
		if len(short) > 110 {
			short = short[:107] + "..."
		}
		parts = append(parts, fmt.Sprintf("%d× %s", m[k], short))
	}
	return "; " + strings.Join(parts, "; ")
}
