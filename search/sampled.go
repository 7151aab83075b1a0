package search

import (
	"math/rand/v2"
	"sort"

	"github.com/pginterleave/interleave/sched"
)

// DefaultSampledAttempts is the attempt budget of a randomized strategy
// run without --max-runs or --max-time: a sampled search never exhausts.
const DefaultSampledAttempts = 1000

// attemptRand is the generator of attempt seq of a search seeded with seed:
// the same (seed, seq) gives the same schedule on any worker or machine.
func attemptRand(seed int64, seq int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(seq)*0x9e3779b97f4a7c15+1))
}

// randomPolicy releases a uniformly chosen pending unit (with overlap, a
// pair of units of different actors one time in four when one exists).
type randomPolicy struct {
	rng     *rand.Rand
	overlap bool
}

func (p *randomPolicy) Choose(_ int, cands []sched.Candidate) ([]int, error) {
	if len(cands) == 1 {
		return []int{0}, nil
	}
	if p.overlap && p.rng.IntN(4) == 0 {
		if pairs := overlapPairs(cands); len(pairs) > 0 {
			pr := pairs[p.rng.IntN(len(pairs))]
			return []int{pr[0], pr[1]}, nil
		}
	}
	return []int{p.rng.IntN(len(cands))}, nil
}

// pctPolicy is probabilistic concurrency testing (Burckhardt, Kothari,
// Musuvathi, Nagarakatte, ASPLOS 2010): each actor gets a random distinct
// priority from d..d+n-1; d-1 change points are drawn uniformly from the k
// decisions of an attempt; at each decision the pending unit of the
// highest-priority actor is released, and at the i-th change point the
// actor just released drops to priority d-1-i (below every initial one).
// For a bug of depth d (d ordering constraints between n actors) one
// attempt finds it with probability at least 1/(n * k^(d-1)).
//
// With overlap, a change point releases, one time in two, the unit of the
// highest-priority actor together with that of the next one as a pair, so
// that PCT can reach races inside one statement; the bound above then
// halves for each change point the bug needs to be an ordinary preemption.
type pctPolicy struct {
	prio    map[int]int
	change  map[int]int // decision step -> new priority
	rng     *rand.Rand
	overlap bool
}

func newPCTPolicy(rng *rand.Rand, actors, depth, steps int, overlap bool) *pctPolicy {
	if depth < 1 {
		depth = 1
	}
	if steps < 1 {
		steps = 1
	}
	p := &pctPolicy{prio: map[int]int{}, change: map[int]int{}, rng: rng, overlap: overlap}
	perm := rng.Perm(actors)
	for a := 0; a < actors; a++ {
		p.prio[a] = depth + perm[a]
	}
	points := rng.Perm(steps)
	if len(points) > depth-1 {
		points = points[:depth-1]
	}
	sort.Ints(points)
	for i, s := range points {
		p.change[s] = depth - 1 - i
	}
	return p
}

func (p *pctPolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
	best := 0
	for i, c := range cands {
		if p.prio[c.Ref.Actor] > p.prio[cands[best].Ref.Actor] {
			best = i
		}
	}
	np, change := p.change[step]
	if !change {
		return []int{best}, nil
	}
	p.prio[cands[best].Ref.Actor] = np
	if p.overlap && p.rng.IntN(2) == 0 {
		if second := p.pairFor(best, cands); second >= 0 {
			return []int{best, second}, nil
		}
	}
	return []int{best}, nil
}

// pairFor is the candidate of the highest-priority other actor (or
// connection) that may be released together with cands[best], or -1.
func (p *pctPolicy) pairFor(best int, cands []sched.Candidate) int {
	second := -1
	for _, pr := range overlapPairs(cands) {
		other := -1
		switch best {
		case pr[0]:
			other = pr[1]
		case pr[1]:
			other = pr[0]
		default:
			continue
		}
		if second < 0 || p.prio[cands[other].Ref.Actor] > p.prio[cands[second].Ref.Actor] {
			second = other
		}
	}
	return second
}

// overlapPairs lists pairs of pending units that may be released together:
// different actors (or connections), neither a preparation.
func overlapPairs(cands []sched.Candidate) [][2]int {
	var out [][2]int
	for i := 0; i < len(cands); i++ {
		for j := i + 1; j < len(cands); j++ {
			a, b := cands[i], cands[j]
			if a.Prepare || b.Prepare || (a.Ref.Actor == b.Ref.Actor && a.Ref.Conn == b.Ref.Conn) {
				continue
			}
			out = append(out, [2]int{i, j})
		}
	}
	return out
}
