package bench

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
)

var shardMeasure = flag.String("shard-measure", "", "comma-separated cases whose orders per shard TestShardOrders measures (for docs/performance.md)")

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
