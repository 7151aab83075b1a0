package bench

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/cmd/cli"
)

// ShardDifferential is one case explored by the whole reduced search and
// by N shards of it (Options.Search.Shard K of Shards N): the union of the
// shards' behaviours and violations must be the whole search's, and the
// merged summaries must give the whole search's verdict.
type ShardDifferential struct {
	Case   string
	Shards int
	// Whole is how many orders the whole search ran; Runs how many each
	// shard ran, the schedules every shard repeats included (the attempts
	// its invariant judged), Attempted what each shard's summary counts.
	Whole     int
	Runs      []int
	Attempted []int
	// Behaviours is how many distinct behaviours the whole search saw.
	Behaviours int
	// Lost: seen by the whole search, by no shard; Extra: seen by a shard,
	// not by the whole search.
	Lost, Extra []Behaviour
	// Violations is how many distinct behaviours the whole search judged
	// violations; LostViolations those no shard judged one.
	Violations     int
	LostViolations []Behaviour
	// WholeVerdict and Merged are the exit codes of the whole search and
	// of `interleave merge` over the shards' summaries, both stopping at
	// the first violation.
	WholeVerdict, Merged int
}

// violates is the differential's invariant for shards: a behaviour is a
// violation when the first byte of its hash is even (about half of them,
// the same ones in every search).
func violates(b Behaviour) bool { return sha256.Sum256([]byte(b))[0]%2 == 0 }

// shardExplorer returns a function that explores c with reduction: whole
// (k = 0) or as shard k of n, recording behaviours in rec; failing makes
// the invariant fail on the behaviours violates picks.
func shardExplorer(ctx context.Context, c Case, opts interleave.Options, n int) func(k int, rec *Recorder, failing, keepGoing bool) (*interleave.Result, error) {
	return func(k int, rec *Recorder, failing, keepGoing bool) (*interleave.Result, error) {
		o := opts
		o.Search.Reduction = ""
		o.Search.ReductionCheck = -1 // the reduction alone is judged
		o.Search.KeepGoing = keepGoing
		if k > 0 {
			o.Search.Shard, o.Search.Shards = k, n
		}
		sc := c.Scenario(rec)
		if failing {
			inner := sc.Invariant
			sc.Invariant = func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
				if err := inner(ctx, db, results); err != nil {
					return err
				}
				b, err := behaviour(ctx, db, results)
				if err != nil {
					return fmt.Errorf("%w: %v", interleave.ErrHarness, err)
				}
				if violates(b) {
					return fmt.Errorf("behaviour %.12x is a violation", sha256.Sum256([]byte(b)))
				}
				return nil
			}
		}
		res, err := interleave.Explore(ctx, sc, o)
		if err != nil {
			return nil, fmt.Errorf("%s (shard %d/%d): %w", c.Name, k, n, err)
		}
		return res, nil
	}
}

// Whole is what the whole reduced search of a case did: its orders, its
// behaviours (those violates picks failing) and its verdict when it stops
// at the first violation.
type Whole struct {
	Orders  int
	Seen    map[Behaviour]int
	Verdict int
}

// RunWhole explores c with reduction, not sharded, going on after
// violations (for the behaviours) and stopping at the first (for the
// verdict).
func RunWhole(ctx context.Context, c Case, opts interleave.Options) (*Whole, error) {
	explore := shardExplorer(ctx, c, opts, 0)
	var rec Recorder
	res, err := explore(0, &rec, true, true)
	if err != nil {
		return nil, err
	}
	w := &Whole{Orders: res.Summary.Attempted, Seen: rec.Seen}
	if res, err = explore(0, &Recorder{}, true, false); err != nil {
		return nil, err
	}
	w.Verdict = res.ExitCode()
	return w, nil
}

// RunShardDifferential explores c with reduction in n shards and compares
// them with the whole search w: the behaviours and the violations (an
// invariant that fails on the behaviours violates picks), each shard going
// on after its violations, and the verdict of `interleave merge` over the
// shards' summaries when each stops at its first violation, as CI would
// (dir holds the summaries).
func RunShardDifferential(ctx context.Context, c Case, opts interleave.Options, w *Whole, n int, dir string) (*ShardDifferential, error) {
	d := &ShardDifferential{Case: c.Name, Shards: n, Whole: w.Orders, WholeVerdict: w.Verdict, Behaviours: len(w.Seen)}
	explore := shardExplorer(ctx, c, opts, n)
	union := map[Behaviour]bool{}
	found := map[Behaviour]bool{}
	var paths []string
	for k := 1; k <= n; k++ {
		var rec Recorder
		res, err := explore(k, &rec, true, true)
		if err != nil {
			return nil, err
		}
		runs := 0
		for b, m := range rec.Seen {
			union[b] = true
			found[b] = found[b] || violates(b)
			runs += m
		}
		d.Runs = append(d.Runs, runs)
		d.Attempted = append(d.Attempted, res.Summary.Attempted)
		if res, err = explore(k, &Recorder{}, true, false); err != nil {
			return nil, err
		}
		data, err := json.Marshal(cli.Summarize(res))
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, fmt.Sprintf("%s-%d-of-%d.json", c.Name, k, n))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	for b := range w.Seen {
		if !union[b] {
			d.Lost = append(d.Lost, b)
		}
		if violates(b) {
			d.Violations++
			if !found[b] {
				d.LostViolations = append(d.LostViolations, b)
			}
		}
	}
	for b := range union {
		if w.Seen[b] == 0 {
			d.Extra = append(d.Extra, b)
		}
	}
	sort.Slice(d.Lost, func(i, j int) bool { return d.Lost[i] < d.Lost[j] })
	sort.Slice(d.Extra, func(i, j int) bool { return d.Extra[i] < d.Extra[j] })
	sort.Slice(d.LostViolations, func(i, j int) bool { return d.LostViolations[i] < d.LostViolations[j] })
	m, err := cli.MergeSummaries(paths)
	if err != nil {
		return nil, err
	}
	d.Merged = m.Summary.ExitCode
	return d, nil
}

// ShardOrders explores c whole and in n shards with an invariant that never
// fails: the orders each ran (for docs/performance.md), and the
// behaviours the shards lost.
func ShardOrders(ctx context.Context, c Case, opts interleave.Options, n int) (*ShardDifferential, error) {
	d := &ShardDifferential{Case: c.Name, Shards: n}
	explore := shardExplorer(ctx, c, opts, n)
	var whole Recorder
	res, err := explore(0, &whole, false, false)
	if err != nil {
		return nil, err
	}
	d.Whole, d.Behaviours = res.Summary.Attempted, len(whole.Seen)
	union := map[Behaviour]bool{}
	for k := 1; k <= n; k++ {
		var rec Recorder
		res, err := explore(k, &rec, false, false)
		if err != nil {
			return nil, err
		}
		runs := 0
		for b, m := range rec.Seen {
			union[b] = true
			runs += m
		}
		d.Runs = append(d.Runs, runs)
		d.Attempted = append(d.Attempted, res.Summary.Attempted)
	}
	for b := range whole.Seen {
		if !union[b] {
			d.Lost = append(d.Lost, b)
		}
	}
	return d, nil
}
