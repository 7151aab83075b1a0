package search

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"
)

// Explore runs the search to a stop.
func Explore(ctx context.Context, opts Options, hooks Hooks, run RunFunc) (*Summary, error) {
	var err error
	if opts.Strategy, err = ParseStrategy(string(opts.Strategy)); err != nil {
		return nil, err
	}
	if err := opts.withFaults(); err != nil {
		return nil, err
	}
	if opts.Strategy.Sampled() && opts.MaxAttempts == 0 && opts.MaxTime == 0 {
		opts.MaxAttempts = DefaultSampledAttempts
	}
	if opts.Depth == 0 {
		opts.Depth = 2
	}
	if opts.PairRepeats == 0 {
		opts.PairRepeats = 10
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
	if opts.ReductionCheck == 0 {
		opts.ReductionCheck = DefaultReductionCheck
	}
	broken.Store(brokenDependence())
	e := &explorer{
		opts:        opts,
		hooks:       hooks,
		run:         run,
		start:       time.Now(),
		front:       &frontier{dfs: opts.Strategy == DFS, reduced: opts.Reduction == POR},
		por:         map[stateKey]*porState{},
		classes:     map[[sha256.Size]byte]bool{},
		victimPlans: map[string]bool{},
		inflight:    map[int]running{},
		seenSched:   map[uint64]bool{},
		sampled:     opts.Strategy.Sampled(),
		sum:         &Summary{Strategy: opts.Strategy, FirstFailure: -1, Reduction: opts.Reduction},
		behaviours:  map[string]bool{},
		checkRand:   newCheckRand(opts.Seed),
	}
	if opts.Reduction == POR && !opts.Strategy.Sampled() && opts.ReductionCheck > 0 {
		e.checkN = opts.ReductionCheck
	}
	e.cond = sync.NewCond(&e.mu)
	e.push(&node{})
	return e.explore(ctx), nil
}

type explorer struct {
	opts  Options
	hooks Hooks
	run   RunFunc
	start time.Time

	mu        sync.Mutex
	cond      *sync.Cond
	front     *frontier
	inflight  map[int]running
	seq       int
	stopping  string
	seenSched map[uint64]bool
	sum       *Summary
	sampled   bool // random or pct: every attempt is drawn, no frontier
	maxSteps  int  // most decisions seen in one attempt (PCT's k)
	actors    int  // actors seen (PCT's n)
	bytes     int  // estimated memory held by the frontier
	recorded  bool // the first attempt has been recorded
	por       map[stateKey]*porState
	classes   map[[sha256.Size]byte]bool // Options.CountClasses
	porFull   bool                       // the reduction's records reached the memory budget
	// victimPlans are the plans queued for another deadlock victim.
	victimPlans map[string]bool
	// dealt says that the schedules every shard runs are over and the
	// plans have been dealt out; sharedReduced that the plans with one
	// choice are shared too (shard.go).
	dealt         bool
	sharedReduced bool

	// The reduction check (check.go).
	checkN        int
	checkRand     *rand.Rand
	skipped       []skippedOrder
	check         ReductionCheck
	behaviours    map[string]bool
	behaviourFull bool
}

func (e *explorer) explore(ctx context.Context) *Summary {
	e.runWorkers(ctx)
	e.mu.Lock()
	exhausted := e.stopping == "" && e.front.Len() == 0 && e.sum.PrunedByBytes == 0
	checking := exhausted && e.checkN > 0 && e.sum.Failures == 0 && e.queueCheck()
	e.mu.Unlock()
	if checking {
		e.runWorkers(ctx)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.sum
	s.Check = e.check
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
	s.Distinct = len(e.seenSched) // at most maxSeenSchedules
	return s
}

// runWorkers runs the workers until the frontier is empty or the search
// stops.
func (e *explorer) runWorkers(ctx context.Context) {
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
}

// stop ends the search for reason (the first one given stays) and wakes
// every waiting worker; e.mu held.
func (e *explorer) stop(reason string) {
	if e.stopping == "" {
		e.stopping = reason
	}
	e.cond.Broadcast()
}

// finished reports whether nothing is running and nothing is left to run;
// e.mu held.
func (e *explorer) finished() bool {
	if e.stopping != "" {
		return true
	}
	if len(e.inflight) > 0 {
		return false
	}
	if e.budgetSpent() {
		return true
	}
	return !e.sampled && e.front.Len() == 0
}

// budgetSpent reports whether the attempts dispatched and the reruns of
// plans (a diverged plan run again, a pair repeated) have used up
// Options.MaxAttempts; e.mu held. Reruns count: without them a search
// whose plans diverged ran past --max-runs (366 attempts of 284 in the
// fault soak of 2 December 2026).
func (e *explorer) budgetSpent() bool {
	return e.opts.MaxAttempts > 0 && e.seq+e.sum.Retries >= e.opts.MaxAttempts
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
		if e.budgetSpent() {
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
		if e.front.Len() > 0 && e.front.mayDispatch(e.front.peek(), e.inflight) && !(e.sharing() && len(e.inflight) > 0) {
			var n *node
			if e.sharing() {
				n = e.popShared()
			} else {
				n = e.pop()
			}
			seq := e.seq
			e.seq++
			e.inflight[seq] = running{seq: seq, depth: n.depth, path: n.path}
			return n, seq
		}
		e.cond.Wait()
	}
}

func (e *explorer) worker(ctx context.Context, w int) {
	if w > 0 && e.hooks.StartWorker != nil {
		if !e.awaitFirstAttempt() {
			return
		}
		if err := e.hooks.StartWorker(ctx, w); err != nil {
			if ctx.Err() != nil {
				return // cancelled: the search stops for that reason
			}
			e.mu.Lock()
			// A search the other workers finished meanwhile keeps its result.
			if !e.finished() {
				if e.sum.StopErr == nil {
					e.sum.StopErr = err
				}
				e.stop(StopHarness)
			}
			e.mu.Unlock()
			return
		}
	}
	for {
		n, seq := e.next()
		if n == nil {
			return
		}
		var rep Report
		if e.sampled && seq > 0 {
			rep = e.run(ctx, w, seq, n.plan, e.drawnPolicy(seq))
		} else if n.check == checkRandom {
			rep = e.run(ctx, w, seq, n.plan, &randomPolicy{rng: attemptRand(e.opts.Seed^0x5eedc4ec, seq), overlap: e.opts.Overlap == Pairs})
		} else {
			diverged := 0
			for try := 1; ; try++ {
				pp := NewPlanPolicy(n.plan)
				rep = e.run(ctx, w, seq, n.plan, pp)
				if !rep.Diverged && !pp.Complete() && rep.Stop == nil && !rep.Inconclusive {
					rep.Diverged = true
					rep.DivergedAt = fmt.Sprintf("the actors sent fewer commands than the plan names (%d of its %d choices applied)", pp.next, len(n.plan.Choices))
				}
				// A plan that could not be followed ran into timing the
				// scheduler does not control (a pool's goroutines, a
				// timer): it runs again before it is given up.
				if (rep.Diverged || rep.Unsettled) && diverged < DivergeRetries && ctx.Err() == nil && e.retryAllowed() {
					diverged++
					continue
				}
				rep.reruns = diverged
				// A pair lets PostgreSQL decide the interleaving: a passing
				// run does not clear the plan, so it runs again.
				if rep.Failed || rep.Stop != nil || rep.Diverged || try >= e.opts.PairRepeats || !endsWithPair(n.plan) || !e.retryAllowed() {
					break
				}
			}
		}
		if debugReduction {
			var b strings.Builder
			for _, d := range rep.Decisions {
				fmt.Fprintf(&b, " %v", d.Released)
			}
			fmt.Fprintf(os.Stderr, "RUN plan=%q diverged=%v (%s):%s\n", n.plan.Key(), rep.Diverged, rep.DivergedAt, b.String())
		}
		e.mu.Lock()
		e.record(n, seq, rep)
		delete(e.inflight, seq)
		e.cond.Broadcast()
		if e.hooks.Progress != nil {
			e.hooks.Progress(Progress{Attempts: e.sum.Attempted, Violations: e.sum.Failures, Frontier: e.front.Len(), Elapsed: time.Since(e.start)})
		}
		e.mu.Unlock()
	}
}

// awaitFirstAttempt blocks until the first attempt has been recorded and
// reports whether the search goes on after it.
func (e *explorer) awaitFirstAttempt() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for !e.recorded && e.stopping == "" {
		e.cond.Wait()
	}
	return !e.finished()
}

// record folds one attempt's report into the summary and frontier; e.mu held.
func (e *explorer) record(n *node, seq int, rep Report) {
	e.recorded = true
	s := e.sum
	if e.sharing() {
		// Every shard runs the first schedules alike, then deals the
		// plans out (shard.go).
		defer e.deal(n, rep)
		if e.opts.Shard != 1 {
			e.recordShared(n, seq, rep)
			return
		}
	}
	// The check's runs are counted apart from the search's attempts.
	if n.check != notCheck {
		if e.shardCheck(n, seq, rep) {
			return
		}
		switch {
		case rep.Stop != nil:
			s.StopErr = rep.Stop
			e.stop(StopHarness)
		case rep.Diverged || rep.Inconclusive:
			// Not judged: the sample says nothing either way.
		default:
			e.recordCheck(n, seq, rep)
		}
		return
	}
	s.Attempted++
	s.Reruns += rep.reruns
	e.countFaults(rep)
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
	if rep.Behaviour != "" && !rep.Diverged && rep.Stop == nil {
		if e.behaviours[rep.Behaviour] || len(e.behaviours) < maxBehaviours {
			e.behaviours[rep.Behaviour] = true
		} else {
			e.behaviourFull = true
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
		if rep.WrongVictim {
			s.WrongVictims++
		}
		if s.FirstDivergence == "" {
			s.FirstDivergence = rep.DivergedAt
		}
		return
	case rep.Inconclusive:
		s.Inconclusive++
	default:
		s.Completed++
	}
	if e.opts.CountClasses && rep.Trace != nil && !rep.Inconclusive {
		e.classes[classOf(rep.Trace)] = true
		s.Classes = len(e.classes)
	}
	sig := scheduleSignature(rep.Decisions)
	// The set of schedules seen is capped so that a long search runs in
	// bounded memory; past the cap, duplicates are no longer counted.
	if e.seenSched[sig] {
		s.Duplicates++
	}
	if len(e.seenSched) < maxSeenSchedules {
		e.seenSched[sig] = true
	}
	// Expand even a failing schedule, so that the pending count says how
	// much was left unexplored when the search stops here.
	if !e.sampled {
		e.expandFor(n, seq, rep)
		e.queueVictims(n, seq, rep)
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

// DivergeRetries is how many times a plan that could not be followed runs
// again.
const DivergeRetries = 2

// maxSeenSchedules caps the deduplication set (about 40 bytes an entry).
const maxSeenSchedules = 1 << 18

// expandFor queues what follows an attempt: the alternatives its races call
// for under reduction, every alternative otherwise; e.mu held.
func (e *explorer) expandFor(n *node, seq int, rep Report) {
	n.deadlocked = len(rep.Deadlocks) > 0
	if e.opts.Reduction == POR && e.expandReduced(n, seq, rep.Decisions, rep.Trace, rep.Behaviour) {
		e.expandFaults(n, seq, rep.Decisions)
		return
	}
	e.expand(n, seq, rep.Decisions)
}

// queueVictims queues, for each deadlock of an attempt, the same plan with
// each other participant as the victim; e.mu held.
func (e *explorer) queueVictims(n *node, seq int, rep Report) {
	if e.hooks.NoVictimChoice != nil && e.hooks.NoVictimChoice() {
		return
	}
	if len(rep.Deadlocks) > 0 {
		e.victimPlans[n.plan.Key()] = true
	}
	upTo := func(choices []Choice, step int) []Choice {
		var out []Choice
		for _, c := range choices {
			if c.Step <= step {
				out = append(out, c)
			}
		}
		return out
	}
	ran := ChoicesOf(rep.Decisions).Choices
	for _, d := range rep.Deadlocks {
		// This attempt ran each of its deadlocks with the plan's victims,
		// whatever choices brought it there: a victim plan of another
		// attempt that asks for the same is not run again (a reversal of
		// the order in which the deadlock's units began to wait led to
		// the same deadlock, and to its victim plans twice).
		e.victimPlans[Plan{Choices: upTo(ran, d.Step), Victims: n.plan.Victims}.Key()] = true
	}
	for i, d := range rep.Deadlocks {
		// The choices that led to the deadlock: the plan's, and under a
		// plan that continued with a reversal (Plan.Then) the attempt's own.
		// Past the plan's last choice its Then and Sleep released other
		// units than the first (review O): the attempt's own choices.
		before := upTo(ran, d.Step)
		// The deadlocks before this one keep their victims: the plan's
		// choices after them were made in their aftermath.
		var keep []Deadlock
		for j, k := range rep.Deadlocks {
			if j != i && (k.Step < d.Step || (k.Step == d.Step && j < i)) {
				keep = append(keep, k)
			}
		}
		for _, a := range d.Actors[1:] {
			victims, ok := victimOrderKeeping(n.plan.Victims, rep.Actors, keep, d, a)
			if !ok {
				// One rank per actor cannot abort a here and keep an
				// earlier victim: that sequence of victims is not
				// explored, and the search must not call itself complete.
				// (Moving a first would change the earlier victims too,
				// which the earlier deadlocks' own alternatives explore,
				// and the plan's later choices would not apply.)
				e.sum.VictimSequences++
				if e.sum.FirstVictimSequence == "" {
					e.sum.FirstVictimSequence = fmt.Sprintf("actor %d as the victim of the deadlock at step %d, after %d earlier deadlocks of the same attempt kept their victims", a, d.Step, len(keep))
				}
				continue
			}
			p := Plan{Choices: before, Victims: victims}
			key := p.Key()
			if e.victimPlans[key] {
				continue
			}
			e.victimPlans[key] = true
			if e.opts.MaxDepth > 0 && n.depth+1 > e.opts.MaxDepth {
				e.sum.PrunedByDepth++
				continue
			}
			c := &node{plan: p, depth: len(before) + 1, parentSeq: seq, child: n.nextChild, path: append(append([]int32{}, n.path...), int32(n.nextChild))}
			if rep.Trace != nil {
				c.victimAfter, c.victimHash = d.Step, prefixHash(rep.Trace, d.Step)
			}
			n.nextChild++
			e.push(c)
			e.sum.VictimChoices++
		}
	}
}
