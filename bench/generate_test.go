package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/sched"
)

var (
	genFrom    = flag.Int64("gen-from", 1142, "first seed of the generated differential scenarios")
	genCount   = flag.Int("gen-count", 6, "number of generated differential scenarios (seeds gen-from, gen-from+1, ...)")
	genBound   = flag.Int("gen-bound", DefaultGenBound, "most orders without reduction a generated scenario may have")
	genReport  = flag.String("gen-report", "", "append one line per generated scenario to this file (a campaign's record)")
	genFeature = flag.String("gen-feature", "", "run only the generated scenarios with this feature (for example rows-by-key) or, comma-separated, with any of these; the others are skipped without a line in the report")
	genFaults  = flag.String("gen-faults", "", "search the generated scenarios with these fault kinds (at most one per attempt), both ways")
)

// TestGeneratedSetupsRunConcurrently runs the setups that create roles in
// several databases at once, as a search's workers do.
func TestGeneratedSetupsRunConcurrently(t *testing.T) {
	var setups []string
	for seed := int64(0); len(setups) < 4 && seed < 2000; seed++ {
		if c := Generate(seed); strings.Contains(c.Setup, "CREATE ROLE") {
			setups = append(setups, c.Setup)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(setups))
	for i, s := range setups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := server.CreateDatabase(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			defer server.DropDatabase(context.Background(), db)
			conn, err := pgx.Connect(ctx, server.ConnString(db))
			if err != nil {
				errs[i] = err
				return
			}
			defer conn.Close(context.Background())
			_, errs[i] = conn.Exec(ctx, s)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("setup %d: %v", i, err)
		}
	}
}

// TestGeneratedReductionLosesNoBehaviour is the differential test on
// generated scenarios: each is explored fully with and without reduction
// and must show the same behaviours. A scenario that loses one is printed
// whole, ready for bench/cases.go.
func TestGeneratedReductionLosesNoBehaviour(t *testing.T) {
	var report *os.File
	if *genReport != "" {
		f, err := os.OpenFile(*genReport, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		report = f
	}
	for seed := *genFrom; seed < *genFrom+int64(*genCount); seed++ {
		c, feats := GenerateBounded(seed, *genBound)
		if *genFeature != "" && !slices.ContainsFunc(strings.Split(*genFeature, ","), func(f string) bool { return slices.Contains(feats, f) }) {
			continue
		}
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			var sizes []string
			for _, a := range c.Actors {
				sizes = append(sizes, fmt.Sprint(ExecutingSteps(a)))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
			defer cancel()
			start := time.Now()
			o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 2}}
			if *genFaults != "" {
				fs, err := sched.ParseFaults(*genFaults)
				if err != nil {
					t.Fatal(err)
				}
				o.Search.Faults, o.Search.MaxFaults = fs, 1
			}
			d, err := RunDifferential(ctx, c, o)
			if err != nil {
				if report != nil {
					fmt.Fprintf(report, "seed=%d actors=%d steps=%s orders=%d error=%q features=%s\n", seed, len(c.Actors), strings.Join(sizes, "+"), Orders(c), err.Error(), strings.Join(feats, ","))
				}
				t.Fatalf("seed %d: %v\nfeatures: %s\ncase:\n%s", seed, err, strings.Join(feats, " "), GoSource(c))
			}
			t.Logf("seed %d (%s steps, %d orders): %d behaviours; %d orders without reduction (%v), %d with (%v); total %v; features %s",
				seed, strings.Join(sizes, "+"), Orders(c), d.Behaviours, d.Full, d.FullTime.Round(time.Millisecond), d.Reduced, d.ReduceTime.Round(time.Millisecond),
				time.Since(start).Round(time.Millisecond), strings.Join(feats, " "))
			if report != nil {
				fmt.Fprintf(report, "seed=%d actors=%d steps=%s orders=%d full=%d reduced=%d behaviours=%d lost=%d extra=%d reruns=%d+%d seconds=%.1f faults=%s features=%s\n",
					seed, len(c.Actors), strings.Join(sizes, "+"), Orders(c), d.Full, d.Reduced, d.Behaviours, len(d.Lost), len(d.Extra), d.FullReruns, d.ReducedReruns, time.Since(start).Seconds(), *genFaults, strings.Join(feats, ","))
			}
			for _, b := range d.Lost {
				t.Errorf("seed %d: lost by the reduction: %s", seed, b)
			}
			for _, b := range d.Extra {
				t.Errorf("seed %d: seen only with the reduction (the scenario is not deterministic?): %s", seed, b)
			}
			// Orders, not attempts: a rerun (a plan run again because
			// PostgreSQL did not follow it, as a DEFERRABLE snapshot's
			// wait may not) is not an order (seed 81083).
			if full, red := d.Full-d.FullReruns, d.Reduced-d.ReducedReruns; red > full {
				t.Errorf("seed %d: the reduction ran %d orders, more than the %d of the full search (reruns %d and %d)", seed, red, full, d.ReducedReruns, d.FullReruns)
			}
			if t.Failed() {
				t.Logf("features: %s\ncase (for bench/cases.go):\n%s", strings.Join(feats, " "), GoSource(c))
			}
		})
	}
}

// TestGeneratedIsDeterministic: the same seed gives the same case, within
// the bound and the sizes promised.
func TestGeneratedIsDeterministic(t *testing.T) {
	for seed := int64(0); seed < 300; seed++ {
		a, fa := GenerateBounded(seed, DefaultGenBound)
		b, fb := GenerateBounded(seed, DefaultGenBound)
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(fa, fb) {
			t.Fatalf("seed %d gave two different cases:\n%s\n%s", seed, GoSource(a), GoSource(b))
		}
		if c := Generate(seed); !reflect.DeepEqual(a, c) {
			t.Fatalf("seed %d: Generate and GenerateBounded differ", seed)
		}
		if n := Orders(a); n > DefaultGenBound {
			t.Errorf("seed %d: %d orders, over the bound %d", seed, n, DefaultGenBound)
		}
		if len(a.Actors) < 2 || len(a.Actors) > 3 {
			t.Errorf("seed %d: %d actors", seed, len(a.Actors))
		}
		for i, steps := range a.Actors {
			if n := ExecutingSteps(steps); n < 2 || n > 6 {
				t.Errorf("seed %d: actor %d has %d steps", seed, i+1, n)
			}
			for _, s := range steps {
				if !s.Simple && strings.Contains(s.SQL, ";") {
					t.Errorf("seed %d: several statements in an extended-protocol step: %s", seed, s.SQL)
				}
			}
		}
	}
	if Orders(Generate(1)) == 0 {
		t.Fatal("no orders")
	}
	if n, _ := GenerateBounded(5, 2000); Orders(n) > 2000 {
		t.Fatal("over the campaign bound")
	}
}

// genRequiredFeatures is what seeds 0..1999 must exercise between them.
var genRequiredFeatures = []string{
	"partition", "partition-key-filter", "tenant-filter", "tenant-setting", "partition-row-movement", "inheritance",
	"trigger", "trigger-dynamic-sql", "trigger-before", "rule", "view", "view-for-update", "view-skip-locked",
	"fk-cascade", "deferred-constraint", "nextval", "sequence-read", "currval", "pg_sequence_last_value", "setval",
	"identity", "generated-column", "sql-function", "plpgsql-function", "stable-function", "writing-function",
	"function-dynamic-sql", "function-default", "advisory-xact-lock", "advisory-try-lock", "search-path", "set-role-rls",
	"iso-begin", "iso-set-transaction", "iso-session-characteristics", "iso-default-transaction-isolation",
	"iso-database-default", "multi-statement", "commit-begin-checkpoint", "begin-commit-in-one-query",
	"savepoint", "rollback-to-savepoint", "autocommit", "temp-table", "temp-shadow", "lock-table", "nowait",
	"skip-locked", "lock-timeout", "retry", "snapshot-probe", "create-table", "fk-rows",
	"chain", "aborted-block", "deadlock-shape", "bound-params", "fk-traps", "lock-traps", "advisory-traps",
	"unique-keys", "relation-locks", "hidden-code",
}

func TestGeneratedFeatures(t *testing.T) {
	count := map[string]int{}
	for seed := int64(0); seed < 2000; seed++ {
		_, feats := GenerateBounded(seed, DefaultGenBound)
		for _, f := range feats {
			count[f]++
		}
	}
	for _, f := range genRequiredFeatures {
		if count[f] == 0 {
			t.Errorf("no seed in 0..1999 exercises %s", f)
		}
	}
	var parts []string
	for _, f := range genRequiredFeatures {
		parts = append(parts, fmt.Sprintf("%s=%d", f, count[f]))
	}
	t.Logf("seeds 0..1999: %s", strings.Join(parts, " "))
}

// genBugStates are SQLSTATEs that mean the generator wrote something wrong
// rather than that an order made a statement fail.
func genBugState(state string) bool {
	switch state {
	case "42501": // insufficient privilege: row security's WITH CHECK
		return false
	case "0A000", "25P01", "22P02", "42601", "42703", "42883", "42P01", "42804", "42P07", "42710", "XX000":
		return true
	}
	return strings.HasPrefix(state, "42")
}

// TestGeneratedSetupsRun runs the setup of seeds 0..99 (-short: 0..39)
// in a fresh database, then each actor's steps alone, one actor after the other, and
// fails on a statement PostgreSQL rejects as malformed (syntax, unknown
// object, a statement outside a transaction block).
func TestGeneratedSetupsRun(t *testing.T) {
	n := 100
	if testing.Short() {
		n = 40
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	db, err := server.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer server.DropDatabase(context.Background(), db)
	conn, err := pgx.Connect(ctx, server.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	pristine, err := pgserver.Snapshot(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	states := map[string]int{}
	for seed := int64(0); seed < int64(n); seed++ {
		c := Generate(seed)
		if err := pgserver.ResetDatabase(ctx, conn, db, pristine); err != nil {
			t.Fatalf("seed %d: reset: %v", seed, err)
		}
		if _, err := conn.Exec(ctx, c.Setup); err != nil {
			t.Fatalf("seed %d: setup failed: %v\n%s", seed, err, GoSource(c))
		}
		for i, steps := range c.Actors {
			out, err := runSteps(steps)(ctx, server.ConnString(db))
			narrowPath := false
			for _, s := range steps {
				narrowPath = narrowPath || strings.Contains(s.SQL, "search_path TO other")
			}
			creates := strings.Contains(c.Setup, "CREATE SCHEMA side")
			bad := func(state string) bool {
				if narrowPath && (state == "42P01" || state == "42883") {
					return false // public's tables and functions are out of the path
				}
				if creates && (state == "42P01" || state == "42P07") {
					return false // modCreateTable: used before created, created twice
				}
				return genBugState(state)
			}
			if err != nil {
				var pe *pgconn.PgError
				if !errors.As(err, &pe) {
					t.Fatalf("seed %d actor %d: %v", seed, i+1, err)
				}
				if bad(pe.Code) {
					t.Errorf("seed %d actor %d: %v\n%s", seed, i+1, err, GoSource(c))
				}
			}
			results, _ := out.([]string)
			for j, r := range results {
				st, ok := strings.CutPrefix(r, "ERROR ")
				if ok {
					states[st]++
				}
				if ok && bad(st) {
					t.Errorf("seed %d actor %d step %d (%s): SQLSTATE %s\n%s", seed, i+1, j+1, steps[min(j, len(steps)-1)].SQL, st, GoSource(c))
				}
			}
		}
	}
	t.Logf("%d setups and serial runs in %v; errors by SQLSTATE: %v", n, time.Since(start).Round(time.Millisecond), states)
}
