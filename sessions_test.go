package interleave_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
)

// sessionProbe is an actor that fails when its session carries anything
// an earlier connection left (a setting, a prepared statement, a temporary
// table, an advisory lock, a LISTEN, a transaction characteristic), then
// leaves all of those behind itself, increments the counter and notes its
// backend pid and the lock_timeout it started with.
type sessionProbe struct {
	mu       sync.Mutex
	pids     map[string][]uint32
	timeouts []string
}

func (p *sessionProbe) actor(name string, key int) interleave.Actor {
	return interleave.Actor{Name: name, Run: func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		var pid uint32
		var app, iso, lockTimeout string
		var prepared, temps, locks, listens int
		err = c.QueryRow(ctx, `SELECT pg_backend_pid(), current_setting('application_name'),
			current_setting('default_transaction_isolation'), current_setting('lock_timeout'),
			(SELECT count(*) FROM pg_prepared_statements WHERE name = 'leftover'),
			(SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema()),
			(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()),
			(SELECT count(*) FROM pg_listening_channels())`, pgx.QueryExecModeSimpleProtocol).
			Scan(&pid, &app, &iso, &lockTimeout, &prepared, &temps, &locks, &listens)
		if err != nil {
			return nil, err
		}
		if app != "" || iso != "read committed" || prepared != 0 || temps != 0 || locks != 0 || listens != 0 {
			return nil, fmt.Errorf("the session carried an earlier connection's state: application_name %q isolation %q prepared %d temporary relations %d advisory locks %d channels %d",
				app, iso, prepared, temps, locks, listens)
		}
		p.mu.Lock()
		p.pids[name] = append(p.pids[name], pid)
		p.timeouts = append(p.timeouts, lockTimeout)
		p.mu.Unlock()
		// One unit that leaves state behind, one that writes: the search
		// stays small (the temporary table is DDL, which the reduction
		// does not analyse).
		dirty := fmt.Sprintf(`SET application_name = 'dirty'; PREPARE leftover AS SELECT 1;
			CREATE TEMP TABLE leftover_t (a int); SELECT pg_advisory_lock(%d); LISTEN leftover_channel;
			SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ`, key)
		for _, q := range []string{dirty, "UPDATE counter SET n = n + 1 WHERE id = 1"} {
			if _, err := c.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol); err != nil {
				return nil, fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil, nil
	}}
}

func distinct(pids []uint32) int {
	seen := map[uint32]bool{}
	for _, p := range pids {
		seen[p] = true
	}
	return len(seen)
}

// TestActorSessionsAreKeptAndReset: by default each actor's session
// is reset and handed to its next attempt (one backend per actor for the
// whole search), and nothing one attempt leaves in it reaches the next;
// with FreshSessions every connection gets a new backend.
func TestActorSessionsAreKeptAndReset(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprintf("fresh=%v", fresh), func(t *testing.T) {
			probe := &sessionProbe{pids: map[string][]uint32{}}
			sc := fixture.Counter(true)
			sc.Actors = []interleave.Actor{probe.actor("alice", 1), probe.actor("bob", 2)}
			o := opts()
			o.Search.Workers = 1
			o.Proxy.FreshSessions = fresh
			res, err := interleave.Explore(fixture.Context(t), sc, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != interleave.OutcomePass || !res.Summary.Exhausted() {
				t.Fatalf("outcome %s (exhausted %v): %s", res.Outcome, res.Summary.Exhausted(), res.Message)
			}
			n := res.Summary.Attempted
			for _, actor := range []string{"alice", "bob"} {
				pids := probe.pids[actor]
				if len(pids) != n || n < 3 {
					t.Fatalf("%s ran %d times in %d attempts", actor, len(pids), n)
				}
				want := 1
				if fresh {
					want = n
				}
				if got := distinct(pids); got != want {
					t.Fatalf("%s had %d backends in %d attempts, want %d: %v", actor, got, n, want, pids)
				}
			}
		})
	}
}

// TestPairsGetNewBackends: a search that releases pairs of units together
// (Overlap pairs) starts a new backend for every connection, kept sessions
// or not (engine: worker.keepsSessions).
func TestPairsGetNewBackends(t *testing.T) {
	var mu sync.Mutex
	pids := map[string][]uint32{}
	actor := func(name string) interleave.Actor {
		return interleave.Actor{Name: name, Run: func(ctx context.Context, cs string) (any, error) {
			c, err := pgx.Connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			defer c.Close(ctx)
			var pid uint32
			if err := c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				return nil, err
			}
			mu.Lock()
			pids[name] = append(pids[name], pid)
			mu.Unlock()
			_, err = c.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
			return nil, err
		}}
	}
	sc := fixture.Counter(true)
	sc.Actors = []interleave.Actor{actor("alice"), actor("bob")}
	o := opts()
	o.Search.Workers = 1
	o.Search.Overlap = "pairs"
	res, err := interleave.Explore(fixture.Context(t), sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	for _, name := range []string{"alice", "bob"} {
		if n := len(pids[name]); n < 2 || distinct(pids[name]) != n {
			t.Fatalf("%s: %d backends in %d runs: %v", name, distinct(pids[name]), n, pids[name])
		}
	}
}

// TestKeptSessionsFollowTheSetupsSettings: a backend takes database and
// role settings when it starts, and RESET ALL returns to those; a setup
// that changes them (here a database-level lock_timeout that differs in
// every attempt) must not get a session started under the old ones.
func TestKeptSessionsFollowTheSetupsSettings(t *testing.T) {
	probe := &sessionProbe{pids: map[string][]uint32{}}
	sc := fixture.Counter(true)
	sc.Actors = []interleave.Actor{probe.actor("alice", 1), probe.actor("bob", 2)}
	var mu sync.Mutex
	var set []string
	setup := sc.Setup
	sc.Setup = func(ctx context.Context, db *pgx.Conn) error {
		if err := setup(ctx, db); err != nil {
			return err
		}
		mu.Lock()
		v := fmt.Sprintf("%ds", 100+len(set))
		set = append(set, v)
		mu.Unlock()
		_, err := db.Exec(ctx, fmt.Sprintf("DO $$BEGIN EXECUTE format('ALTER DATABASE %%I SET lock_timeout = %%L', current_database(), '%s'); END$$", v))
		return err
	}
	o := opts()
	o.Search.Workers = 1
	o.Proxy.FreshSessions = false
	res, err := interleave.Explore(fixture.Context(t), sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	// Each attempt's two actors saw the lock_timeout its own setup set.
	if len(probe.timeouts) != 2*len(set) {
		t.Fatalf("%d actor runs for %d setups", len(probe.timeouts), len(set))
	}
	for i, got := range probe.timeouts {
		if want := set[i/2]; got != want {
			t.Fatalf("actor run %d saw lock_timeout %s, its setup set %s (all: %v)", i, got, want, probe.timeouts)
		}
	}
}

// TestPredicateLocksAreNotTheTransactionsLocks: a committed SERIALIZABLE
// transaction's SIREAD locks stay in pg_locks under its backend's pid
// while any serializable transaction that overlapped it runs (here one
// held open in another database for the whole search). They belong to no
// open transaction: the lock cross-check must not take them for locks of
// the backend's next transaction, in the same connection or, with kept
// sessions, in the next attempt (where they name the previous attempt's
// dropped tables). Before the cross-check left them out, each such
// transaction was made global, and the read-only anomaly's repair
// explored thousands of orders instead of 387 when two workers overlapped.
func TestPredicateLocksAreNotTheTransactionsLocks(t *testing.T) {
	ctx := fixture.Context(t)
	held, err := pgx.Connect(ctx, server.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close(context.Background())
	if _, err := held.Exec(ctx, "BEGIN ISOLATION LEVEL SERIALIZABLE"); err != nil {
		t.Fatal(err)
	}
	if _, err := held.Exec(ctx, "SELECT 1"); err != nil { // takes its snapshot
		t.Fatal(err)
	}
	serial := func(tables ...string) func(ctx context.Context, cs string) (any, error) {
		return func(ctx context.Context, cs string) (any, error) {
			c, err := pgx.Connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			defer c.Close(ctx)
			for _, tb := range tables {
				for _, q := range []string{"BEGIN ISOLATION LEVEL SERIALIZABLE", "SELECT sum(v) FROM " + tb, // a scan: a relation SIREAD lock
					"UPDATE " + tb + " SET v = v + 1 WHERE id = 1", "COMMIT"} {
					if _, err := c.Exec(ctx, q); err != nil {
						return nil, fmt.Errorf("%s: %w", q, err)
					}
				}
			}
			return nil, nil
		}
	}
	sc := interleave.Scenario{
		Name: "predicate-locks",
		Setup: fixture.Exec(`CREATE TABLE a (id int PRIMARY KEY, v int); CREATE TABLE b (id int PRIMARY KEY, v int);
			CREATE TABLE c (id int PRIMARY KEY, v int); INSERT INTO a VALUES (1, 0); INSERT INTO b VALUES (1, 0); INSERT INTO c VALUES (1, 0)`),
		// one: a transaction on a, then one on b, in one connection; two:
		// one on c. Nothing is shared: no correction.
		Actors:    []interleave.Actor{{Name: "one", Run: serial("a", "b")}, {Name: "two", Run: serial("c")}},
		Invariant: func(context.Context, *pgx.Conn, []interleave.ActorResult) error { return nil },
	}
	orders := map[bool]int{}
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
			o := opts()
			o.Search.Workers = 1
			o.Proxy.FreshSessions = !keep
			res, err := interleave.Explore(ctx, sc, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != interleave.OutcomePass || !res.Summary.Exhausted() {
				t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
			}
			if n := res.Summary.LockCorrections; n != 0 {
				t.Fatalf("%d units were corrected for locks they did not hold (%d attempts)", n, res.Summary.Attempted)
			}
			orders[keep] = res.Summary.Attempted
		})
	}
	// Kept sessions change nothing the reduction sees.
	if orders[true] != orders[false] {
		t.Fatalf("%d orders with kept sessions, %d with new backends", orders[true], orders[false])
	}
}
