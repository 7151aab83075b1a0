package bench

import (
	"context"
	"flag"
	"github.com/jackc/pgx/v5"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/sched"
)

var large = flag.Bool("large", false, "also run the differential cases that take thousands of orders without reduction")

var sourceSets = flag.Bool("source-sets", false, "also run each reduced search without sleep sets (source sets alone) and report its orders")

// TestReductionLosesNoBehaviour explores every case fully with and without
// partial-order reduction and requires the same set of behaviours (each
// actor's results and errors, and the database at the end).
func TestReductionLosesNoBehaviour(t *testing.T) {
	for _, c := range Cases() {
		if c.Large && !*large {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
			defer cancel()
			if c.MinMajor > 0 && olderThan(ctx, t, c) {
				return
			}
			workers := 2
			if c.Serial {
				workers = 1
			}
			d, err := RunDifferential(ctx, c, interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: workers}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d behaviours, %d classes; %d orders without reduction (%v), %d with (%v) in %d classes; %d lock corrections, %d reruns", d.Behaviours, d.Classes, d.Full, d.FullTime.Round(time.Millisecond), d.Reduced, d.ReduceTime.Round(time.Millisecond), d.ReducedClasses, d.Corrections, d.Reruns)
			if *sourceSets {
				o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 2, SourceSetsOnly: true}}
				n, err := ReducedOrders(ctx, c, o)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("without sleep sets: %d orders", n)
			}
			checkDifferential(t, d)
		})
	}
}

// olderThan reports a server older than c.MinMajor, where c's setup must
// fail (else MinMajor is wrong).
func olderThan(ctx context.Context, t *testing.T, c Case) bool {
	t.Helper()
	db, err := server.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer server.DropDatabase(context.WithoutCancel(ctx), db)
	conn, err := pgx.Connect(ctx, server.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var num int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&num); err != nil {
		t.Fatal(err)
	}
	if num/10000 >= c.MinMajor {
		return false
	}
	if _, err := conn.Exec(ctx, c.Setup); err == nil {
		t.Fatalf("%s is marked for PostgreSQL %d and later, but its setup runs on %d", c.Name, c.MinMajor, num/10000)
	} else {
		t.Logf("needs PostgreSQL %d; on %d its setup fails: %v", c.MinMajor, num/10000, err)
	}
	return true
}

// TestDebugDifferential explores one case (DEBUG_CASE) with and without
// reduction and lists each one's behaviours. With INTERLEAVE_DEBUG_REDUCTION
// the search prints each attempt's plan, trace and races; with
// DEBUG_BEHAVIOUR the case prints each attempt's behaviour just before
// that attempt's plan, which pairs a lost behaviour with the orders that
// produce it.
func TestDebugDifferential(t *testing.T) {
	name := os.Getenv("DEBUG_CASE")
	if name == "" {
		t.Skip("DEBUG_CASE names a case")
	}
	for _, c := range Cases() {
		if c.Name != name {
			continue
		}
		for _, red := range []string{"none", "por"} {
			var rec Recorder
			o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 1}}
			o.Search.Reduction.Set(red)
			if fs := os.Getenv("DEBUG_FAULTS"); fs != "" {
				o.Search.Faults, _ = sched.ParseFaults(fs)
				o.Search.MaxFaults = 1
			}
			res, err := interleave.Explore(context.Background(), c.Scenario(&rec), o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s %d attempts, diverged %d inconclusive %d (%s)", red, res.Outcome, res.Summary.Attempted, res.Summary.Diverged, res.Summary.Inconclusive, res.Summary.FirstDivergence)
			for b, n := range rec.Seen {
				t.Logf("  %d × %s", n, b)
			}
		}
	}
}

// faultCases are the differential cases TestReductionWithFaultsLosesNoBehaviour
// runs by default (-fault-cases names others, comma-separated).
var faultCases = flag.String("fault-cases", "lost-update,atomic-increment,nextval,upsert,delete-vs-update,repeatable-read-snapshot", "the cases the faults differential runs")

// TestReductionWithFaultsLosesNoBehaviour explores cases with every fault
// kind (at most one per attempt) with and without reduction, and requires
// the same behaviours: a faulted release is a move of its own under the
// reduction (search/faults.go).
func TestReductionWithFaultsLosesNoBehaviour(t *testing.T) {
	want := map[string]bool{}
	for _, n := range strings.Split(*faultCases, ",") {
		want[n] = true
	}
	faults, err := sched.ParseFaults("lost-reply,reset,terminate")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Cases() {
		if !want[c.Name] {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
			defer cancel()
			o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 2, Faults: faults, MaxFaults: 1}}
			d, err := RunDifferential(ctx, c, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("with faults: %d behaviours; %d attempts without reduction (%v), %d with (%v)", d.Behaviours, d.Full, d.FullTime.Round(time.Millisecond), d.Reduced, d.ReduceTime.Round(time.Millisecond))
			checkDifferential(t, d)
		})
	}
}

// checkDifferential fails t for a behaviour the reduction lost or added,
// and for a reduced search that ran more than the full one.
func checkDifferential(t *testing.T, d *Differential) {
	t.Helper()
	for _, b := range d.Lost {
		t.Errorf("lost by the reduction: %s", b)
	}
	for _, b := range d.Extra {
		t.Errorf("seen only with the reduction (the scenario is not deterministic?): %s", b)
	}
	// Orders, not attempts: a plan run again because PostgreSQL did not
	// follow it (a victim out of order, a wait granted out of queue) is
	// timing, as the generated differential counts it (dc481d0).
	// An attempt the reduction could not judge is expanded at every step
	// of its plan, which may run a few orders the full search reached
	// along another path.
	if red, full := d.Reduced-d.ReducedReruns, d.Full-d.FullReruns; red > full && d.Unjudged == 0 {
		t.Errorf("the reduction ran %d orders, more than the %d of the full search (%d and %d attempts with reruns)", red, full, d.Reduced, d.Full)
	}
}

// TestDifferentialHarnessJudges: the differential's own reads of the end
// state (behaviour, moreBehaviour) must leave the reduction at work. Had
// they shown an oid or a transaction id, every attempt would be unjudged
// and explored in full, and every case would pass without testing the
// reduction (as at 89dd986, whose reads joined catalogs by oid: the text
// rule took it for a counter). disjoint-3's three actors touch three
// tables: one order is enough, and 90 are possible.
func TestDifferentialHarnessJudges(t *testing.T) {
	var c Case
	for _, x := range Cases() {
		if x.Name == "disjoint-3" {
			c = x
		}
	}
	if c.Name == "" {
		t.Fatal("no case disjoint-3")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	d, err := RunDifferential(ctx, c, interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Full < 90 || d.Reduced > 1 || d.ReducedClasses == 0 {
		t.Fatalf("disjoint-3: %d orders without reduction, %d with (%d classes): want 90, 1 and 1; the differential's reads of the end state leave attempts unjudged or make them dependent", d.Full, d.Reduced, d.ReducedClasses)
	}
}
