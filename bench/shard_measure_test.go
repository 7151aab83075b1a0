package bench

import (
	"context"
	"flag"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

var shardMeasure = flag.String("shard-measure", "", "comma-separated cases, or repairs of ThreeActorRepairs and OwnThreeActorRepairs, whose orders per shard TestShardOrders measures (for docs/performance.md)")

// TestShardOrders measures, for the cases -shard-measure names, the orders
// the whole reduced search runs and those each of 4 shards runs. It asserts
// only that no behaviour is lost; the numbers are for the docs.
func TestShardOrders(t *testing.T) {
	if *shardMeasure == "" {
		t.Skip("-shard-measure names the cases to measure")
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*shardMeasure, ",") {
		want[n] = true
	}
	for _, r := range append(ThreeActorRepairs(), OwnThreeActorRepairs()...) {
		if want[r.Name] {
			shardRepair(t, r)
		}
	}
	for _, c := range Cases() {
		if !want[c.Name] {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		d, err := ShardOrders(ctx, c, interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 2}}, 4)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, r := range d.Runs {
			total += r
		}
		t.Logf("%s: whole %d orders; shards of 4 ran %v (%d in all; their summaries count %v); %d behaviours, lost %d, extra %d", c.Name, d.Whole, d.Runs, total, d.Attempted, d.Behaviours, len(d.Lost), len(d.Extra))
		for _, b := range d.Lost {
			t.Errorf("%s: lost by the shards: %s", c.Name, b)
		}
	}
}

// shardRepair explores a three-actor repair whole and in 4 shards (2
// workers each, 10 minutes at most each) and logs the orders each judged:
// its invariant's calls, the schedules every shard shares included. Each
// must pass with its part of the space explored.
func shardRepair(t *testing.T, r Race) {
	var runs []int64
	for k := 0; k <= 4; k++ {
		sc := r.Fix
		var calls atomic.Int64
		inv := sc.Invariant
		sc.Invariant = func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
			calls.Add(1)
			return inv(ctx, db, rs)
		}
		o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 2, MaxTime: 10 * time.Minute}}
		if k > 0 {
			o.Search.Shard, o.Search.Shards = k, 4
		}
		start := time.Now()
		res, err := interleave.Explore(context.Background(), sc, o)
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		t.Logf("%s shard %d/4: %s, %s: %d judged, summary %d attempted, %d reruns, %v", r.Name, k, res.Outcome, s.StopReason, calls.Load(), s.Attempted, s.Reruns, time.Since(start).Round(time.Millisecond))
		if res.Outcome != interleave.OutcomePass || !s.Exhausted() {
			t.Errorf("%s shard %d: %s: %s", r.Name, k, res.Outcome, res.Message)
		}
		runs = append(runs, calls.Load())
	}
	var all int64
	for _, n := range runs[1:] {
		all += n
	}
	t.Logf("%s: whole %d; shards of 4 judged %v (%d in all); targets: each at most %.1f, all at most %.1f", r.Name, runs[0], runs[1:], all, 0.4*float64(runs[0])+1, 1.2*float64(runs[0])+4)
}
