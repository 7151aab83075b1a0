package paymentpsql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/pgtest"
	"github.com/pginterleave/interleave/internal/testkit/testenv"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/scenario"
	"github.com/pginterleave/interleave/sched"
)

var server *pgserver.Local

func TestMain(m *testing.M) { pgtest.Main(m, &server, pgserver.LocalOptions{}) }

// explore searches file with the faults its options name, which must be
// faults.
func explore(t *testing.T, file string, faults sched.Faults) *interleave.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	l, err := scenario.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Options.Search.Faults.String(); got != faults.String() {
		t.Fatalf("%s names faults %q; want %q", file, got, faults)
	}
	o := l.Options
	o.Server.Use = server
	o.Search.Workers = 1
	res, err := interleave.Explore(ctx, l.Scenario, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s after %d attempts (%d with a fault): %s", file, res.Outcome, res.Summary.Attempted, res.Summary.FaultAttempts, res.Message)
	return res
}

// A shell script that retries psql on failure charges twice after a lost
// COMMIT reply; the idempotency key repairs it for every order and fault.
func TestPsqlPaymentRetry(t *testing.T) {
	testenv.Command(t, "psql", "install PostgreSQL's client (apt-get install -y postgresql-client)")
	res := explore(t, "race.yaml", sched.Faults{sched.LostReply})
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, "charged at most once") {
		t.Fatalf("race.yaml: %s (%s); want the double charge", res.Outcome, res.Message)
	}
	faulted := 0
	for _, u := range res.Artifact.Units {
		if u.Fault != "" {
			faulted++
			if u.Actor != "checkout" || u.Fault != "lost-reply" || !u.Completed {
				t.Errorf("faulted unit %s#%d.%d %q (%s), completed %v; want checkout's transaction, completed, its reply lost", u.Actor, u.Conn, u.Unit, u.SQL, u.Fault, u.Completed)
			}
		}
	}
	if faulted != 1 {
		t.Fatalf("%d faulted units; want 1", faulted)
	}
	res = explore(t, "fixed.yaml", sched.FaultKinds())
	if res.Outcome != interleave.OutcomePass || !res.Summary.Exhausted() || res.Summary.FaultAttempts == 0 {
		t.Fatalf("fixed.yaml: %s (%s), exhausted %v; want an exhausted pass with faults", res.Outcome, res.Message, res.Summary.Exhausted())
	}
}
