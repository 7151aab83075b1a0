package search

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/pginterleave/interleave/sched"
)

// Report is what the search needs to know about one attempt.
type Report struct {
	Decisions    []sched.Decision
	Failed       bool  // a violation or actor error: a failure worth keeping
	Inconclusive bool  // could not be judged
	Diverged     bool  // the plan could not be followed
	Stop         error // a harness failure that makes further attempts pointless
}

// RunFunc runs one attempt on worker w following policy. seq is the
// attempt's dispatch sequence number (0 for the first).
type RunFunc func(ctx context.Context, w, seq int, plan Plan, policy sched.Policy) Report

// Options are search budgets and strategy.
type Options struct {
	// Strategy is "fifo" (fewest choices first, the default), "dfs",
	// "random" or "pct". Seed drives random and pct; Depth is PCT's bug
	// depth d (default 2).
	Strategy    string
	Seed        int64
	Depth       int
	MaxAttempts int
	MaxTime     time.Duration
	MaxDepth    int
	KeepGoing   bool
	Workers     int
	// Overlap adds pair releases: two pending units of different actors
	// released in one write pass, for PostgreSQL to interleave. A plan that
	// ends with a pair runs up to PairRepeats times (default 3) until it
	// fails, since the interleaving is PostgreSQL's.
	Overlap     bool
	PairRepeats int
	// Shard K of Shards (1-based) explores a disjoint part of the same
	// deterministic space: every shard runs the first schedule, and the
	// subtrees of its alternatives are dealt out round-robin. Zero Shards
	// means the whole space.
	Shard, Shards int
	// FrontierBytes bounds the memory of pending prefixes (0: 256 MiB);
	// prefixes beyond it are dropped, counted, and the search is then not
	// exhaustive.
	FrontierBytes int
	// Progress, when set, is called after each attempt (from one goroutine
	// at a time).
	Progress func(Progress)
}

// Progress is a snapshot for a live status line.
type Progress struct {
	Attempts, Violations, Frontier int
	Elapsed                        time.Duration
}

// Stop reasons.
const (
	StopExhausted = "frontier exhausted"
	StopFailure   = "stopped at the first failure"
	StopAttempts  = "attempt budget spent"
	StopTime      = "time budget spent"
	StopCancelled = "cancelled"
	StopHarness   = "stopped by a harness error"
	StopMemory    = "frontier memory budget reached"
)

// Summary describes a finished search.
type Summary struct {
	Strategy      string
	Attempted     int
	Completed     int // judged: passed or failed
	Failures      int
	Inconclusive  int
	Diverged      int
	Duplicates    int // plans that produced an already-seen schedule
	Pending       int // plans left in the frontier
	PrunedByDepth int // children not queued because of MaxDepth
	PrunedByBytes int // children not queued because of FrontierBytes
	Distinct      int // distinct schedules run
	Retries       int // extra runs of plans ending with a pair
	MaxDepth      int // deepest plan attempted
	StopReason    string
	StopErr       error
	FirstFailure  int // dispatch sequence of the earliest failing attempt, -1 when none
	// FirstFailurePath locates that attempt in the exploration tree (child
	// indices from the first schedule): comparable across shards.
	FirstFailurePath []int32
	Elapsed          time.Duration
}

// Exhausted reports whether every schedule (within MaxDepth, when set) was
// explored.
func (s *Summary) Exhausted() bool { return s.StopReason == StopExhausted }

// Explore runs the search to a stop.
func Explore(ctx context.Context, opts Options, run RunFunc) (*Summary, error) {
	if opts.Strategy == "" {
		opts.Strategy = "fifo"
	}
	switch opts.Strategy {
	case "fifo", "dfs":
	case "random", "pct":
		if opts.MaxAttempts == 0 && opts.MaxTime == 0 {
			opts.MaxAttempts = DefaultSampledAttempts
		}
	default:
		return nil, fmt.Errorf("unknown search strategy %q (known: fifo, dfs, random, pct)", opts.Strategy)
	}
	if opts.Depth == 0 {
		opts.Depth = 2
	}
	if opts.PairRepeats == 0 {
		opts.PairRepeats = 3
	}
	if opts.Shards > 1 && (opts.Shard < 1 || opts.Shard > opts.Shards) {
		return nil, fmt.Errorf("shard %d/%d: K must be between 1 and N", opts.Shard, opts.Shards)
	}
	if opts.FrontierBytes == 0 {
		opts.FrontierBytes = 256 << 20
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	e := &explorer{
		opts:      opts,
		run:       run,
		start:     time.Now(),
		front:     &frontier{dfs: opts.Strategy == "dfs"},
		inflight:  map[int]running{},
		seenPlan:  map[uint64]bool{},
		seenSched: map[uint64]bool{},
		sampled:   opts.Strategy == "random" || opts.Strategy == "pct",
		sum:       &Summary{Strategy: opts.Strategy, FirstFailure: -1},
	}
	e.cond = sync.NewCond(&e.mu)
	e.push(&node{})
	e.seenPlan[planHash(Plan{})] = true
	return e.explore(ctx), nil
}

type explorer struct {
	opts  Options
	run   RunFunc
	start time.Time

	mu        sync.Mutex
	cond      *sync.Cond
	front     *frontier
	inflight  map[int]running
	seq       int
	stopping  string
	seenPlan  map[uint64]bool
	seenSched map[uint64]bool
	sum       *Summary
	sampled   bool // random or pct: every attempt is drawn, no frontier
	maxSteps  int  // most decisions seen in one attempt (PCT's k)
	actors    int  // actors seen (PCT's n)
	bytes     int  // estimated memory held by the frontier
}

func (e *explorer) explore(ctx context.Context) *Summary {
	var wg sync.WaitGroup
	for w := 0; w < e.opts.Workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			e.worker(ctx, w)
		}(w)
	}
	// Wake waiting workers when the context ends.
	stopWatch := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			e.mu.Lock()
			e.stop(StopCancelled)
			e.cond.Broadcast()
			e.mu.Unlock()
		case <-stopWatch:
		}
	}()
	wg.Wait()
	close(stopWatch)
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.sum
	s.Pending = e.front.Len()
	s.Elapsed = time.Since(e.start)
	switch {
	case e.stopping != "":
		s.StopReason = e.stopping
	case s.Pending == 0 && s.PrunedByBytes > 0:
		s.StopReason = StopMemory
	case s.Pending == 0:
		s.StopReason = StopExhausted
	}
	s.Distinct = len(e.seenSched)
	return s
}

func (e *explorer) stop(reason string) {
	if e.stopping == "" {
		e.stopping = reason
	}
}

// next blocks until a plan may be dispatched, or returns nil when the search
// is over for this worker.
func (e *explorer) next() (*node, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		if e.stopping != "" {
			return nil, 0
		}
		if e.opts.MaxAttempts > 0 && e.seq >= e.opts.MaxAttempts {
			if e.front.Len() > 0 || e.sampled {
				e.stop(StopAttempts)
			}
			if len(e.inflight) == 0 {
				e.cond.Broadcast()
			}
			return nil, 0
		}
		if e.opts.MaxTime > 0 && time.Since(e.start) >= e.opts.MaxTime {
			e.stop(StopTime)
			return nil, 0
		}
		if e.sampled && e.seq > 0 && (e.maxSteps > 0 || len(e.inflight) == 0) {
			// Drawn attempts need no frontier; the first one (the default
			// order) measured k for PCT.
			seq := e.seq
			e.seq++
			e.inflight[seq] = running{seq: seq}
			return &node{}, seq
		}
		if e.front.Len() == 0 && len(e.inflight) == 0 {
			e.cond.Broadcast()
			return nil, 0
		}
		if e.front.Len() > 0 && e.front.mayDispatch(e.front.peek(), e.inflight) {
			n := e.pop()
			seq := e.seq
			e.seq++
			e.inflight[seq] = running{seq: seq, depth: n.depth, path: n.path}
			return n, seq
		}
		e.cond.Wait()
	}
}

func (e *explorer) worker(ctx context.Context, w int) {
	for {
		n, seq := e.next()
		if n == nil {
			return
		}
		var rep Report
		if e.sampled && seq > 0 {
			rep = e.run(ctx, w, seq, n.plan, e.drawnPolicy(seq))
		} else {
			for try := 1; ; try++ {
				pp := NewPlanPolicy(n.plan)
				rep = e.run(ctx, w, seq, n.plan, pp)
				if !rep.Diverged && !pp.Complete() && rep.Stop == nil && !rep.Inconclusive {
					rep.Diverged = true
				}
				// A pair lets PostgreSQL decide the interleaving: a passing
				// run does not clear the plan, so it runs again.
				if rep.Failed || rep.Stop != nil || rep.Diverged || try >= e.opts.PairRepeats || !endsWithPair(n.plan) || !e.retryAllowed() {
					break
				}
			}
		}
		e.mu.Lock()
		e.record(n, seq, rep)
		delete(e.inflight, seq)
		e.cond.Broadcast()
		if e.opts.Progress != nil {
			e.opts.Progress(Progress{Attempts: e.sum.Attempted, Violations: e.sum.Failures, Frontier: e.front.Len(), Elapsed: time.Since(e.start)})
		}
		e.mu.Unlock()
	}
}

// record folds one attempt's report into the summary and frontier; e.mu held.
func (e *explorer) record(n *node, seq int, rep Report) {
	s := e.sum
	if n.depth == 0 && e.opts.Shards > 1 && e.opts.Shard != 1 && !e.sampled {
		// Every shard runs the first schedule to learn its alternatives;
		// shard 1 alone counts it.
		if rep.Stop != nil {
			s.StopErr = rep.Stop
			e.stop(StopHarness)
			return
		}
		e.expand(n, seq, rep.Decisions)
		return
	}
	s.Attempted++
	if len(rep.Decisions) > e.maxSteps {
		e.maxSteps = len(rep.Decisions)
	}
	for _, d := range rep.Decisions {
		for _, c := range d.Candidates {
			if c.Ref.Actor+1 > e.actors {
				e.actors = c.Ref.Actor + 1
			}
		}
	}
	depth := n.depth
	if e.sampled {
		depth = 0
		for _, d := range rep.Decisions {
			if d.Choice {
				depth++
			}
		}
	}
	if depth > s.MaxDepth {
		s.MaxDepth = depth
	}
	switch {
	case rep.Stop != nil:
		s.StopErr = rep.Stop
		e.stop(StopHarness)
		return
	case rep.Diverged:
		s.Diverged++
		return
	case rep.Inconclusive:
		s.Inconclusive++
	default:
		s.Completed++
	}
	sig := scheduleSignature(rep.Decisions)
	if e.seenSched[sig] {
		s.Duplicates++
	}
	e.seenSched[sig] = true
	// Expand even a failing schedule, so that the pending count says how
	// much was left unexplored when the search stops here.
	if !e.sampled {
		e.expand(n, seq, rep.Decisions)
	}
	if rep.Failed {
		s.Failures++
		if s.FirstFailure < 0 || seq < s.FirstFailure {
			s.FirstFailure = seq
			s.FirstFailurePath = append([]int32(nil), n.path...)
		}
		if !e.opts.KeepGoing {
			e.stop(StopFailure)
		}
	}
}

// expand queues every plan that deviates from this schedule at a step after
// the plan's last choice.
func (e *explorer) expand(n *node, seq int, ds []sched.Decision) {
	last := n.plan.lastStep()
	child := 0
	for _, d := range ds {
		if d.Step <= last || len(d.Candidates) < 2 {
			continue
		}
		var choices [][]sched.UnitRef
		for i := 1; i < len(d.Candidates); i++ {
			choices = append(choices, []sched.UnitRef{d.Candidates[i].Ref})
		}
		if e.opts.Overlap {
			for _, pr := range overlapPairs(d.Candidates) {
				choices = append(choices, []sched.UnitRef{d.Candidates[pr[0]].Ref, d.Candidates[pr[1]].Ref})
			}
		}
		for _, units := range choices {
			if e.opts.MaxDepth > 0 && n.depth+1 > e.opts.MaxDepth {
				e.sum.PrunedByDepth++
				continue
			}
			p := n.plan.with(Choice{Step: d.Step, Units: units})
			key := planHash(p)
			if e.seenPlan[key] {
				continue
			}
			path := append(append(make([]int32, 0, len(n.path)+1), n.path...), int32(child))
			c := &node{plan: p, depth: n.depth + 1, parentSeq: seq, child: child, path: path}
			child++
			if n.depth == 0 && e.opts.Shards > 1 && (c.child%e.opts.Shards)+1 != e.opts.Shard {
				continue // another shard's subtree
			}
			if e.bytes+c.size() > e.opts.FrontierBytes {
				e.sum.PrunedByBytes++
				continue
			}
			e.seenPlan[key] = true
			e.push(c)
		}
	}
}

func (e *explorer) push(n *node) {
	e.bytes += n.size()
	e.front.push(n)
}

func (e *explorer) pop() *node {
	n := e.front.pop()
	e.bytes -= n.size()
	return n
}

func endsWithPair(p Plan) bool {
	return len(p.Choices) > 0 && len(p.Choices[len(p.Choices)-1].Units) == 2
}

// retryAllowed counts a passing try of a pair plan as an attempt, within
// the attempt budget.
func (e *explorer) retryAllowed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopping != "" || (e.opts.MaxAttempts > 0 && e.seq+e.sum.Retries >= e.opts.MaxAttempts) {
		return false
	}
	e.sum.Retries++
	e.sum.Attempted++
	e.sum.Completed++
	return true
}

// drawnPolicy is the policy of attempt seq of a random or pct search.
func (e *explorer) drawnPolicy(seq int) sched.Policy {
	e.mu.Lock()
	k, actors := e.maxSteps, e.actors
	e.mu.Unlock()
	rng := attemptRand(e.opts.Seed, seq)
	if e.opts.Strategy == "pct" {
		return newPCTPolicy(rng, actors, e.opts.Depth, k)
	}
	return &randomPolicy{rng: rng, overlap: e.opts.Overlap}
}

// planHash identifies a plan in the deduplication set (8 bytes a plan).
func planHash(p Plan) uint64 {
	h := fnv.New64a()
	h.Write([]byte(p.Key()))
	return h.Sum64()
}

// scheduleSignature hashes the released units in order.
func scheduleSignature(ds []sched.Decision) uint64 {
	h := fnv.New64a()
	var b [12]byte
	for _, d := range ds {
		for _, u := range d.Released {
			putInt(b[0:], u.Actor)
			putInt(b[4:], u.Conn)
			putInt(b[8:], u.Unit)
			h.Write(b[:])
		}
		h.Write([]byte{0xff})
	}
	return h.Sum64()
}

func putInt(b []byte, v int) {
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}
