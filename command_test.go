package interleave_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/internal/testkit/poll"
	"github.com/pginterleave/interleave/internal/testkit/testenv"
)

// psql is a command actor: the counter's read and write from a shell script
// using psql, which finds its proxy through PGHOST/PGPORT/... alone.
func psqlIncrement(name string) interleave.Actor {
	script := `set -e
n=$(psql -X -A -t -v ON_ERROR_STOP=1 -c "SELECT n FROM counter WHERE id = 1")
psql -X -q -v ON_ERROR_STOP=1 -c "UPDATE counter SET n = $((n + 1)) WHERE id = 1"
printf '{"read": %s, "actor": "%s", "pgdb": "%s"}' "$n" "$INTERLEAVE_ACTOR" "${PGDATABASE%%_*}"`
	return interleave.CommandActor(name, []string{"sh", "-c", script}, interleave.CommandOptions{})
}

func TestCommandActorsFindTheRaceWithPsql(t *testing.T) {
	testenv.Command(t, "psql", "install PostgreSQL's client (apt-get install -y postgresql-client)")
	// Variables that would point a client around the proxy are removed.
	t.Setenv("PGHOST", "203.0.113.1")
	t.Setenv("PGPORT", "1")
	t.Setenv("TEST_DATABASE_URL", "")
	t.Setenv("LEGACY_DATABASE_URL", "postgres://elsewhere/")
	sc := fixture.Counter(false)
	sc.Actors = []interleave.Actor{psqlIncrement("alice"), psqlIncrement("bob")}
	res, err := interleave.Explore(fixture.Context(t), sc, opts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	for _, a := range res.Artifact.Actors {
		var v struct {
			Read  int
			Actor string
			PGDB  string
		}
		if err := json.Unmarshal(a.Value, &v); err != nil || v.Actor != a.Actor || v.PGDB != "interleave" {
			t.Fatalf("actor %s returned %s (%v); want its JSON result with INTERLEAVE_ACTOR and PGDATABASE set", a.Actor, a.Value, err)
		}
	}
	for _, u := range res.Artifact.Units {
		if u.Protocol != "simple" {
			t.Errorf("psql sent a %s unit", u.Protocol)
		}
	}
}

func TestCommandActorFailureAndDeadline(t *testing.T) {
	sc := fixture.Counter(false)
	sc.Actors[1] = interleave.CommandActor("bob", []string{"sh", "-c", "echo 'password is $PGPASSWORD' >&2; echo boom >&2; exit 3"}, interleave.CommandOptions{})
	res, err := interleave.RunOnce(fixture.Context(t), sc, opts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeActorError || !strings.Contains(res.Message, "exited with status 3: password is") || !strings.Contains(res.Message, "boom") {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}

	// A command that hangs, with a child of its own, is killed with its
	// process group at the deadline.
	marker := fmt.Sprintf("interleave-hang-%d", time.Now().UnixNano())
	sc.Actors[1] = interleave.CommandActor("bob", []string{"sh", "-c", "sleep 300 & sleep 301; : " + marker}, interleave.CommandOptions{})
	o := opts()
	o.AttemptTimeout = time.Second
	res, err = interleave.RunOnce(fixture.Context(t), sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeInconclusive {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	// The kill is sent; the processes end as soon as the kernel delivers it.
	poll.Until(t, "every process of the hung actor (command line with "+marker+") to end", func() bool { return !runningWith(marker) })
}

// runningWith reports whether a process runs whose command line contains
// marker (a zombie's command line is empty).
func runningWith(marker string) bool {
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		cmdline, _ := os.ReadFile("/proc/" + p.Name() + "/cmdline")
		if strings.Contains(string(cmdline), marker) {
			return true
		}
	}
	return false
}
