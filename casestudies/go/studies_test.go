package gostudies_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
	gostudies "github.com/pginterleave/interleave/casestudies/go"
	"github.com/pginterleave/interleave/casestudies/go/gooseup"
	"github.com/pginterleave/interleave/casestudies/go/gormfirstorcreate"
	"github.com/pginterleave/interleave/casestudies/go/migrateversiontable"
	"github.com/pginterleave/interleave/casestudies/go/ternversiontable"
	"github.com/pginterleave/interleave/internal/testkit/pgtest"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/search"
)

// server is one managed PostgreSQL shared by every test of the package.
var server *pgserver.Local

func TestMain(m *testing.M) { pgtest.Main(m, &server, pgserver.LocalOptions{}) }

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// checkStudy is what every study must show: the racy variant fails
// (exit 1) within budget attempts, and the fixed variant passes with
// every order of up to st.Bound choices explored (every order when the
// bound is 0; exit 0, frontier exhausted).
func checkStudy(t *testing.T, st *gostudies.Study, budget int) {
	fixed := checkRacy(t, st, budget)
	if fixed.Outcome != interleave.OutcomePass || fixed.ExitCode != interleave.ExitPass {
		t.Fatalf("%s: want a pass (exit 0), got %s (exit %d) after %d attempts: %s (%s)", st.Fixed.Label, fixed.Outcome, fixed.ExitCode, fixed.Attempted, fixed.Message, fixed.Stop)
	}
}

// checkRacy checks that the racy variant fails and that the fixed one
// fails in no order of up to st.Bound choices (0: in no order), with the
// frontier exhausted; it returns the fixed variant's search for the caller
// to judge its exit.
func checkRacy(t *testing.T, st *gostudies.Study, budget int) *gostudies.Search {
	depth := st.Bound
	ctx := ctxFor(t, 20*time.Minute)
	m := &gostudies.Measurer{Server: server, Progress: func(p search.Progress) { t.Logf("%+v", p) }}
	racy, err := m.Explore(ctx, st, st.Racy, budget, 0, false)
	if err != nil {
		t.Fatalf("%s: %v", st.Racy.Label, err)
	}
	t.Logf("%s: %s after %d attempts (%.1fs): %s\n%s", st.Racy.Label, racy.Outcome, racy.Attempted, racy.Elapsed.Seconds(), racy.Message, strings.Join(racy.Order, "\n"))
	if racy.Outcome != interleave.OutcomeViolation || racy.ExitCode != interleave.ExitViolation {
		t.Fatalf("%s: want a violation (exit 1), got %s (exit %d) after %d attempts: %s (%s)", st.Racy.Label, racy.Outcome, racy.ExitCode, racy.Attempted, racy.Message, racy.Stop)
	}
	fixed, err := m.Explore(ctx, st, st.Fixed, budget, depth, false)
	if err != nil {
		t.Fatalf("%s: %v", st.Fixed.Label, err)
	}
	t.Logf("%s: %s after %d attempts (%.1fs), %s; depth bound %d, %d orders beyond it", st.Fixed.Label, fixed.Outcome, fixed.Attempted, fixed.Elapsed.Seconds(), fixed.Stop, depth, fixed.PrunedByDepth)
	if fixed.Failures > 0 || fixed.Outcome == interleave.OutcomeViolation {
		t.Fatalf("%s: want no violation, got %s (exit %d) after %d attempts: %s\n%s", st.Fixed.Label, fixed.Outcome, fixed.ExitCode, fixed.Attempted, fixed.Message, strings.Join(fixed.Order, "\n"))
	}
	if depth == 0 && fixed.PrunedByDepth != 0 {
		t.Fatalf("%s: unbounded, yet %d orders were left out by a depth bound", st.Fixed.Label, fixed.PrunedByDepth)
	}
	if !fixed.Exhausted {
		t.Fatalf("%s: ran %d attempts but did not explore every order (%s; %d prefixes left)", st.Fixed.Label, fixed.Attempted, fixed.Stop, fixed.Pending)
	}
	return fixed
}

// TestGooseUp: goose.Up from two instances applies the same migration
// twice (pressly/goose #258); the Provider with the PostgreSQL session
// locker passes every order of up to its bound's choices.
func TestGooseUp(t *testing.T) { checkStudy(t, gooseup.Study, 500) }

// TestMigrateVersionTable: golang-migrate v3.5.4 creates schema_migrations
// outside its lock (golang-migrate #55); v4.18.3 (PR #150) passes every
// order of up to its bound's choices.
func TestMigrateVersionTable(t *testing.T) { checkStudy(t, migrateversiontable.Study, 3000) }

// TestGormFirstOrCreate is the study CI runs: GORM's FirstOrCreate is a
// SELECT then an INSERT (go-gorm/gorm #5803, #6253); Create with ON
// CONFLICT DO NOTHING then First passes every order, no bound.
func TestGormFirstOrCreate(t *testing.T) {
	if gormfirstorcreate.Study.Bound != 0 {
		t.Fatalf("the GORM study's repair is proved with every order: want Bound 0, got %d", gormfirstorcreate.Study.Bound)
	}
	checkStudy(t, gormfirstorcreate.Study, 500)
}

// TestTernVersionTable: tern v1.9.1 creates its version table outside the
// advisory lock (jackc/tern #19); two CREATEs executing at once fail on
// pg_type's unique index. tern/v2 v2.3.4 takes the lock first.
//
// Under overlap pairs a plan whose pair PostgreSQL ran the other way is
// retried; when it still cannot be followed the search ends inconclusive
// (exit 4) rather than pass. The test therefore requires no violation in
// an exhausted frontier, and a pass or an inconclusive outcome whose only
// cause is plans that could not be followed.
func TestTernVersionTable(t *testing.T) {
	fixed := checkRacy(t, ternversiontable.Study, 3000)
	switch {
	case fixed.Outcome == interleave.OutcomePass:
	case fixed.Outcome == interleave.OutcomeInconclusive && strings.Contains(fixed.Message, "could not be followed"):
		t.Logf("%s: inconclusive (exit 4): %s", ternversiontable.Study.Fixed.Label, fixed.Message)
	default:
		t.Fatalf("%s: got %s (exit %d): %s", ternversiontable.Study.Fixed.Label, fixed.Outcome, fixed.ExitCode, fixed.Message)
	}
}
