package gostudies

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/casestudies"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/search"
)

// Measurer runs the measurements of docs/case-studies.md on one server.
type Measurer struct {
	Server pgserver.Server
	// Progress, when set, hears about every attempt of a search.
	Progress func(search.Progress)
}

// Search is one Interleave exploration of a variant.
type Search struct {
	Outcome   interleave.Outcome
	ExitCode  int
	Message   string
	Attempted int
	Failures  int
	Exhausted bool
	Pending   int // prefixes left unexplored
	// PrunedByDepth counts orders not queued because they needed more
	// choices than the depth bound allowed.
	PrunedByDepth int
	Stop          string
	// FirstFailure is the dispatch number of the first failing attempt
	// (1-based; 0: none).
	FirstFailure int
	Elapsed      time.Duration
	// Order is the failing schedule, "actor: SQL" per released unit.
	Order []string
}

// Explore searches v's orders with the FIFO strategy (fewest choices
// first), one worker and at most budget attempts; depth > 0 bounds the
// choices of an order; keepGoing explores past the first failure.
func (m *Measurer) Explore(ctx context.Context, st *Study, v Variant, budget, depth int, keepGoing bool) (*Search, error) {
	opts := st.Options
	opts.Server.Use = m.Server
	opts.Search.MaxAttempts = budget
	opts.Search.MaxDepth = depth
	opts.Search.KeepGoing = keepGoing
	opts.Output.OnProgress = m.Progress
	start := time.Now()
	res, err := interleave.Explore(ctx, v.Scenario, opts)
	if err != nil {
		return nil, err
	}
	s := &Search{Outcome: res.Outcome, ExitCode: res.ExitCode(), Message: res.Message, Elapsed: time.Since(start)}
	if sum := res.Summary; sum != nil {
		s.Attempted, s.Failures, s.Pending, s.Stop = sum.Attempted, sum.Failures, sum.Pending, sum.StopReason
		s.Exhausted = sum.Exhausted()
		s.PrunedByDepth = sum.PrunedByDepth
		if sum.FirstFailure >= 0 && sum.Failures > 0 {
			s.FirstFailure = sum.FirstFailure + 1
		}
		if sum.StopErr != nil {
			s.Stop += ": " + sum.StopErr.Error()
		}
	}
	if res.Artifact != nil && res.Outcome == interleave.OutcomeViolation {
		s.Order = Order(res.Artifact)
	}
	return s, nil
}

// Order is a's executing units in release order, one line each: a "*"
// for a choice, the actor, the SQL, and the error PostgreSQL answered.
func Order(a *artifact.Artifact) []string {
	byRef := map[artifact.UnitRef]artifact.Unit{}
	for _, u := range a.Units {
		byRef[artifact.UnitRef{Actor: u.Actor, Conn: u.Conn, Unit: u.Unit}] = u
	}
	var out []string
	for _, d := range a.Schedule.Decisions {
		for _, r := range d.Release {
			u := byRef[artifact.UnitRef{Actor: r.Actor, Conn: r.Conn, Unit: r.Unit}]
			if u.Prepare {
				continue
			}
			line := u.Actor + ": " + strings.Join(strings.Fields(strings.Join(u.SQL, "; ")), " ")
			if d.Choice {
				line = "* " + line
			}
			if u.SQLState != "" {
				line += "  -- ERROR " + u.SQLState + " " + u.Error
			}
			if len(u.LockWaits) > 0 {
				line += "  -- waited on a lock"
			}
			out = append(out, line)
		}
	}
	return out
}

// Baseline is ordinary concurrency without Interleave: both actors run as
// goroutines against the server directly, trial after trial.
type Baseline struct {
	Trials   int
	Failures int
	Messages map[string]int // failure message -> count
	Elapsed  time.Duration
}

// PerTrial is the mean wall time of one trial.
func (b *Baseline) PerTrial() time.Duration {
	if b.Trials == 0 {
		return 0
	}
	return b.Elapsed / time.Duration(b.Trials)
}

// Start says how a baseline trial starts its actors.
type Start int

const (
	// Goroutines starts each actor with a go statement, one after the
	// other: ordinary concurrency.
	Goroutines Start = iota
	// Barrier starts both goroutines and holds them at a barrier (a
	// closed channel) so that they call the library at the same instant:
	// the manual barrier a test can place without changing the library.
	Barrier
)

func (s Start) String() string {
	if s == Barrier {
		return "barrier"
	}
	return "goroutines"
}

// Baseline runs trials of v without Interleave: a fresh public schema, the
// setup, the actors started as start says, the invariant.
func (m *Measurer) Baseline(ctx context.Context, v Variant, trials int, start Start) (*Baseline, error) {
	db, err := m.Server.CreateDatabase(ctx)
	if err != nil {
		return nil, err
	}
	defer m.Server.DropDatabase(context.Background(), db)
	direct, err := DirectURL(m.Server, db)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, m.Server.ConnString(db))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	sc := v.Scenario
	b := &Baseline{Messages: map[string]int{}}
	for i := 0; i < trials; i++ {
		if _, err := conn.Exec(ctx, "DROP SCHEMA public CASCADE; CREATE SCHEMA public"); err != nil {
			return nil, err
		}
		if sc.Setup != nil {
			if err := sc.Setup(ctx, conn); err != nil {
				return nil, fmt.Errorf("setup: %w", err)
			}
		}
		began := time.Now()
		results := runActors(ctx, sc.Actors, direct, start)
		b.Elapsed += time.Since(began)
		b.Trials++
		if err := sc.Invariant(ctx, conn, results); err != nil {
			b.Failures++
			b.Messages[err.Error()]++
		}
	}
	return b, nil
}

func runActors(ctx context.Context, actors []interleave.Actor, connString string, start Start) []interleave.ActorResult {
	results := make([]interleave.ActorResult, len(actors))
	gate := make(chan struct{})
	var ready, done sync.WaitGroup
	for i, a := range actors {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			if start == Barrier {
				<-gate
			}
			v, err := a.Run(ctx, connString)
			results[i] = interleave.ActorResult{Actor: a.Name, Value: v, Err: err}
		}()
	}
	ready.Wait()
	close(gate)
	done.Wait()
	return results
}

// DirectURL is a TCP connection string to db on the server itself, as the
// actors' proxies would reach it: the npm studies' own.
var DirectURL = casestudies.DirectURL
