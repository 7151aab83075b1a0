package explain_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/explain"
	"github.com/pginterleave/interleave/internal/testkit/pgtest"
	"github.com/pginterleave/interleave/pgserver"
)

var server *pgserver.Local

func TestMain(m *testing.M) { pgtest.Main(m, &server, pgserver.LocalOptions{}) }

// kinds is each scenario with what explain must say of it.
var kinds = []struct {
	sc       func() engine.Scenario
	name     string // the anomaly; "" none
	adya     string
	fix      string
	errState bool // a level run must show a 40001 or 40P01
}{
	{lostUpdate, explain.LostUpdate, "G-single", explain.FixRepeatableRead, true},
	{writeSkew, explain.WriteSkew, "G2", explain.FixSerializable, true},
	{readSkew, explain.ReadSkew, "G-single", explain.FixRepeatableRead, false},
	{phantom, explain.Phantom, "G-single", explain.FixRepeatableRead, false},
	{readOnly, explain.ReadOnlyAnomaly, "G2-item", explain.FixSerializable, true},
	{checkThenInsert, "", "", explain.FixLocking, false},
}

// explainScenario searches sc for a failure on the shared server and
// explains it.
func explainScenario(t *testing.T, sc engine.Scenario) *explain.Explanation {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	o := engine.Options{Server: engine.ServerOptions{Use: server}}
	o.Search.Workers = 1
	// Which failing order a search finds first decides the fix its
	// explanation can show (read-only: in an order where the report's
	// snapshot, taken when its first SELECT is parsed, precedes the
	// deposit, REPEATABLE READ prevents the failure; the anomaly proper
	// needs SERIALIZABLE). These expectations, and docs/explaining.md,
	// were written for the orders the reduction with source sets alone
	// finds first, and keep that search; with sleep sets and reversal
	// sequences the default search finds another read-only order first,
	// and explains it as the REPEATABLE READ case it is.
	o.Search.SourceSetsOnly = true
	res, err := engine.Explore(ctx, sc, o)
	if err != nil {
		t.Fatalf("%s: search: %v", sc.Name, err)
	}
	if res.Outcome != engine.OutcomeViolation {
		t.Fatalf("%s: the search ended %s (%s), want a violation to explain", sc.Name, res.Outcome, res.Message)
	}
	x, err := engine.Explain(ctx, sc, res.Artifact, engine.ExplainOptions{Options: o})
	if err != nil {
		t.Fatalf("%s: explain: %v", sc.Name, err)
	}
	// The search named the anomaly when it saved the failure, from the
	// order alone: the same as explain.
	if rec := res.Artifact.Explanation; rec == nil || rec.Anomaly != x.Anomaly || !reflect.DeepEqual(rec.Cycle, x.Cycle) || res.AnomalyError != "" {
		t.Fatalf("%s: the search's artifact names %+v (%q); explain names %+v", sc.Name, rec, res.AnomalyError, x.Anomaly)
	}
	return x
}

// TestAnomaliesOnPostgreSQL finds each scenario's failure on a real
// server, and checks its name, its cycle, that the critical pair was found
// by a reversal that passed, and the fix class the level runs showed.
func TestAnomaliesOnPostgreSQL(t *testing.T) {
	for _, k := range kinds {
		sc := k.sc()
		t.Run(sc.Name, func(t *testing.T) {
			x := explainScenario(t, sc)
			t.Logf("%s:\n%s", sc.Name, x.Text())
			if x.Anomaly.Name != k.name || x.Anomaly.Adya != k.adya {
				t.Errorf("named %q (%s), want %q (%s)", x.Anomaly.Name, x.Anomaly.Adya, k.name, k.adya)
			}
			if k.name == "" && (len(x.Cycle) != 0 || !strings.HasPrefix(x.Anomaly.Sentence, explain.NoCycle)) {
				t.Errorf("a cycle where there is none: %v", x.Cycle)
			}
			if k.name != "" && len(x.Cycle) < 2 {
				t.Errorf("no cycle: %v", x.Cycle)
			}
			if p := x.CriticalPair; p == nil || !p.Found || p.FirstActor == p.SecondActor {
				t.Errorf("critical pair %+v", p)
			}
			if x.Fix == nil || x.Fix.Class != k.fix {
				t.Errorf("fix %+v, want %s", x.Fix, k.fix)
			}
			sawErr := false
			for _, l := range x.Levels {
				sawErr = sawErr || len(l.Errors) > 0
			}
			if sawErr != k.errState {
				t.Errorf("level runs %+v: a 40001/40P01 seen %v, want %v", x.Levels, sawErr, k.errState)
			}
		})
	}
}

// TestExplainSaysWhenTheOrderNoLongerFails explains a recorded lost update
// against repaired code (one atomic UPDATE): the explanation says the
// order no longer fails, so its reversals and level runs are not evidence.
func TestExplainSaysWhenTheOrderNoLongerFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	o := engine.Options{Server: engine.ServerOptions{Use: server}}
	o.Search.Workers = 1
	res, err := engine.Explore(ctx, lostUpdate(), o)
	if err != nil || res.Outcome != engine.OutcomeViolation {
		t.Fatalf("search: %v %v", err, res)
	}
	fixed := lostUpdate()
	for i := range fixed.Actors {
		fixed.Actors[i].Run = func(ctx context.Context, cs string) (any, error) {
			return connect(ctx, cs, func(c *pgx.Conn) (any, error) {
				_, err := c.Exec(ctx, "UPDATE accounts SET balance = balance - 10 WHERE id = 1")
				return nil, err
			})
		}
	}
	x, err := engine.Explain(ctx, fixed, res.Artifact, engine.ExplainOptions{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Notes) == 0 || !strings.Contains(strings.Join(x.Notes, " "), "not with the recorded failure") {
		t.Fatalf("no note that the order no longer fails: %s", x.Text())
	}
	if x.Anomaly.Name != explain.LostUpdate {
		t.Errorf("the recording itself is still a lost update; named %q", x.Anomaly.Name)
	}
}
