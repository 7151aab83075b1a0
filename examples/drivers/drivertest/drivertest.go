// Package drivertest holds the checks every driver example runs: the race
// is found, and the repair passes its search.
package drivertest

import (
	"context"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/interleavetest"
)

func options(opts interleave.Options) interleave.Options {
	if opts.Server.Use == nil {
		opts.Server.Use = interleavetest.Server()
	}
	return opts
}

func summary(r *interleave.Result) string {
	var b strings.Builder
	cli.PrintExplore(&b, r)
	return strings.TrimSpace(b.String())
}

// Race explores sc and requires a violation; it returns the result so that
// a test can check the failing schedule.
func Race(t *testing.T, sc interleave.Scenario, opts interleave.Options) *interleave.Result {
	t.Helper()
	res, err := interleave.Explore(context.Background(), sc, options(opts))
	if err != nil {
		t.Fatalf("explore %s: %v", sc.Name, err)
	}
	if res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("the race in %s was not found:\n%s", sc.Name, summary(res))
	}
	t.Logf("race found:\n%s", summary(res))
	return res
}

// Repaired explores sc and requires a pass. Without an attempt budget the
// search must exhaust every order; with one, the budget must be what
// stopped it (a stated-budget search) and no attempt may have failed.
func Repaired(t *testing.T, sc interleave.Scenario, opts interleave.Options) *interleave.Result {
	t.Helper()
	res, err := interleave.Explore(context.Background(), sc, options(opts))
	if err != nil {
		t.Fatalf("explore %s: %v", sc.Name, err)
	}
	s := res.Summary
	switch {
	case res.Outcome == interleave.OutcomePass && s.Exhausted():
	case opts.Search.MaxAttempts > 0 && s.Failures == 0 && s.Inconclusive == 0 && s.Attempted == opts.Search.MaxAttempts:
	default:
		t.Fatalf("the repair of %s did not pass its search:\n%s", sc.Name, summary(res))
	}
	t.Logf("repair passes:\n%s", summary(res))
	return res
}
