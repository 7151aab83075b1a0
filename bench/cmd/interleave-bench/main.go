// Command interleave-bench runs Interleave's bug-finding benchmark and its
// throughput benchmark on a managed PostgreSQL and prints Markdown tables.
//
//	go run ./bench/cmd/interleave-bench -suite all
//
// Bug finding: for each race pattern and strategy, attempts to the first
// violation (the median over seeds for the randomized strategies), and
// whether every repair passes. Throughput: attempts per second with 1, 2
// and 4 workers, next to the physical floor measured in the same run (the
// same reset, setup, connections and SQL run serially on direct
// connections).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/bench"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/search"
)

func main() {
	suite := flag.String("suite", "all", "bugs, throughput, memory or all (memory is not part of all: it runs for half an hour)")
	memAttempts := flag.Int("memory-attempts", 100000, "memory: attempts of the long search")
	frontier := flag.Int("frontier-bytes", 32<<20, "memory: the search's frontier budget")
	seeds := flag.Int("seeds", 7, "seeds per randomized strategy")
	budget := flag.Int("budget", 500, "attempt budget per search")
	rounds := flag.Int("rounds", 3, "throughput: searches per worker count")
	only := flag.String("race", "", "bugs: only the race with this name")
	flag.Parse()
	ctx := context.Background()
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{MaxConnections: 200})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer srv.Close()
	fmt.Printf("PostgreSQL %s, %s, %d CPUs, %s\n\n", srv.Version(), runtime.Version(), runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"))
	if *suite == "bugs" || *suite == "all" {
		bugs(ctx, srv, *seeds, *budget, *only)
	}
	if *suite == "throughput" || *suite == "all" {
		throughput(ctx, srv, *rounds)
	}
	if *suite == "memory" {
		memory(ctx, srv, *memAttempts, *frontier)
	}
}

type strategy struct {
	label, name string
	depth       int
	seeded      bool
}

var strategies = []strategy{
	{"fifo", "fifo", 0, false},
	{"dfs", "dfs", 0, false},
	{"random", "random", 0, true},
	{"pct d=2", "pct", 2, true},
	{"pct d=3", "pct", 3, true},
}

func bugs(ctx context.Context, srv pgserver.Server, seeds, budget int, only string) {
	fmt.Printf("## Attempts to the first violation (budget %d; median over %d seeds for random and pct)\n\n", budget, seeds)
	header := "| race | " + joinLabels() + " | repair (fifo, every order) |"
	fmt.Println(header)
	fmt.Println("|" + strings.Repeat("---|", len(strategies)+2))
	for _, r := range bench.Races() {
		if only != "" && r.Name != only {
			continue
		}
		row := []string{r.Name}
		for _, s := range strategies {
			var counts []int
			n := 1
			if s.seeded {
				n = seeds
			}
			for seed := 1; seed <= n; seed++ {
				o := options(srv, r, budget)
				o.Search.Strategy, o.Search.Depth, o.Search.Seed = search.Strategy(s.name), s.depth, int64(seed)
				res, err := interleave.Explore(ctx, r.Bug, o)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				if res.Outcome == interleave.OutcomeViolation {
					counts = append(counts, res.Summary.Attempted)
				} else {
					counts = append(counts, -1)
				}
			}
			row = append(row, median(counts, n))
		}
		o := options(srv, r, 0)
		fix, err := interleave.Explore(ctx, r.Fix, o)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		verdict := fmt.Sprintf("FAILS (%s)", fix.Message)
		if fix.Outcome == interleave.OutcomePass && fix.Summary.Exhausted() {
			verdict = fmt.Sprintf("passes all %d orders", fix.Summary.Attempted)
		}
		row = append(row, verdict)
		fmt.Println("| " + strings.Join(row, " | ") + " |")
	}
	fmt.Println()
	for _, r := range bench.Races() {
		fmt.Printf("- **%s**: %s.\n", r.Name, r.Story)
	}
	fmt.Println()
}

func options(srv pgserver.Server, r bench.Race, budget int) interleave.Options {
	o := interleave.Options{Server: interleave.ServerOptions{Use: srv}, Search: interleave.SearchOptions{Workers: 1, MaxAttempts: budget}}
	if r.Overlap {
		o.Search.Overlap = "pairs"
	}
	return o
}

func joinLabels() string {
	var l []string
	for _, s := range strategies {
		l = append(l, s.label)
	}
	return strings.Join(l, " | ")
}

// median renders attempt counts; -1 means not found within the budget.
func median(counts []int, n int) string {
	found := 0
	var f []int
	for _, c := range counts {
		if c >= 0 {
			found++
			f = append(f, c)
		}
	}
	if found == 0 {
		return "not found"
	}
	sort.Ints(f)
	m := f[len(f)/2]
	if n == 1 {
		return fmt.Sprint(m)
	}
	if found < n {
		return fmt.Sprintf("%d (found with %d of %d seeds)", m, found, n)
	}
	return fmt.Sprint(m)
}

func throughput(ctx context.Context, srv *pgserver.Local, rounds int) {
	for _, actors := range []int{2, 3} {
		sc := bench.Counter(actors)
		opts := interleave.Options{Server: interleave.ServerOptions{Use: srv}}
		perRound := 90
		if actors == 2 {
			// 6 orders are too few to measure a rate: draw 200.
			opts.Search.Strategy, opts.Search.Seed, opts.Search.MaxAttempts = "random", 1, 200
			perRound = 200
			fmt.Printf("## Throughput: the repaired counter with 2 actors (random strategy, 200 attempts, %d times per row)\n\n", rounds)
		} else {
			fmt.Printf("## Throughput: the repaired counter with 3 actors (90 orders, searched exhaustively %d times per row)\n\n", rounds)
		}
		floor := measureFloor(ctx, srv, actors, perRound*rounds)
		fmt.Println("| workers | attempts/s (kept sessions, the default) | attempts/s (new backends, --fresh-sessions) | floor attempts/s (serial, same SQL, new connections) | attempts/s / floor | fresh / floor |")
		fmt.Println("|---|---|---|---|---|---|")
		for _, w := range []int{1, 2, 4} {
			var rates [2]float64
			for k, fresh := range []bool{false, true} {
				attempts := 0
				var elapsed time.Duration
				for i := 0; i < rounds; i++ {
					opts.Search.Workers, opts.Proxy.FreshSessions = w, fresh
					res, err := interleave.Explore(ctx, sc, opts)
					if err != nil || res.Summary.Completed != res.Summary.Attempted || res.Summary.Failures > 0 {
						fmt.Fprintln(os.Stderr, "throughput search failed:", err, res)
						os.Exit(2)
					}
					attempts += res.Summary.Attempted
					elapsed += res.Summary.Elapsed
				}
				rates[k] = float64(attempts) / elapsed.Seconds()
			}
			fmt.Printf("| %d | %.1f | %.1f | %.1f | %.2f | %.2f |\n", w, rates[0], rates[1], floor, rates[0]/floor, rates[1]/floor)
		}
		fmt.Println()
	}
}

// measureFloor runs the counter's work serially on direct connections:
// reset, setup, one connection per actor running the two statements, the
// invariant query. It returns attempts per second.
func measureFloor(ctx context.Context, srv *pgserver.Local, actors, n int) float64 {
	db, err := srv.CreateDatabase(ctx)
	if err != nil {
		panic(err)
	}
	defer srv.DropDatabase(ctx, db)
	control, err := pgx.Connect(ctx, srv.ConnString(db))
	if err != nil {
		panic(err)
	}
	defer control.Close(ctx)
	p, err := pgserver.Snapshot(ctx, control)
	if err != nil {
		panic(err)
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := bench.CounterFloor(ctx, control, srv.ConnString(db), db, p, actors); err != nil {
			panic(err)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}

// memory runs one long search (4 actors x 3 units: 369,600 orders, more
// than the budget) and samples the process's resident set and Go heap.
func memory(ctx context.Context, srv *pgserver.Local, attempts, frontier int) {
	one := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		for i := 0; i < 3; i++ {
			if _, err := c.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1"); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	sc := interleave.Scenario{
		Name: "memory",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, fixture.CounterSetup)
			return err
		},
		Actors:    []interleave.Actor{{Name: "a", Run: one}, {Name: "b", Run: one}, {Name: "c", Run: one}, {Name: "d", Run: one}},
		Invariant: func(context.Context, *pgx.Conn, []interleave.ActorResult) error { return nil },
	}
	fmt.Printf("## Memory: a search of %d attempts (frontier budget %d MiB)\n\n", attempts, frontier>>20)
	fmt.Println("| elapsed | attempts | RSS MiB | Go heap MiB | frontier |")
	fmt.Println("|---|---|---|---|---|")
	done := make(chan struct{})
	var last search.Progress
	var mu sync.Mutex
	go func() {
		t := time.NewTicker(60 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				mu.Lock()
				p := last
				mu.Unlock()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				fmt.Printf("| %s | %d | %.1f | %.1f | %d |\n", p.Elapsed.Round(time.Second), p.Attempts, rssMiB(), float64(ms.HeapAlloc)/(1<<20), p.Frontier)
			}
		}
	}()
	res, err := interleave.Explore(ctx, sc, interleave.Options{Server: interleave.ServerOptions{Use: srv}, Search: interleave.SearchOptions{MaxAttempts: attempts, FrontierBytes: frontier}, Output: interleave.OutputOptions{OnProgress: func(p search.Progress) { mu.Lock(); last = p; mu.Unlock() }}})
	close(done)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var b strings.Builder
	cli.PrintExplore(&b, res)
	fmt.Printf("\nFinal: RSS %.1f MiB.\n%s\n", rssMiB(), b.String())
}

func rssMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:")), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}
