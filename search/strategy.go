package search

import (
	"fmt"
	"strings"
)

// Strategy names a search strategy. Parse it once at the boundary
// (ParseStrategy, or Set from a flag); the zero value is FIFO.
type Strategy string

// The strategies.
const (
	FIFO   Strategy = "fifo"   // fewest choices first (iterative context bounding)
	DFS    Strategy = "dfs"    // depth-first over the same tree
	Random Strategy = "random" // a uniformly random pending unit at each decision
	PCT    Strategy = "pct"    // probabilistic concurrency testing
)

// Strategies is every strategy, the default first: the one list that
// parsing, validation, scenario files and the command line's help read.
var Strategies = []struct {
	Strategy Strategy
	About    string
}{
	{FIFO, "fewest choices first"},
	{DFS, "depth-first over the same tree"},
	{Random, "a random pending command at each decision"},
	{PCT, "probabilistic concurrency testing"},
}

// StrategyNames lists the strategies' names, the default first.
func StrategyNames() []string {
	names := make([]string, len(Strategies))
	for i, s := range Strategies {
		names[i] = string(s.Strategy)
	}
	return names
}

// ParseStrategy reads a strategy name; "" is FIFO.
func ParseStrategy(s string) (Strategy, error) {
	if s == "" {
		return FIFO, nil
	}
	for _, k := range Strategies {
		if string(k.Strategy) == s {
			return k.Strategy, nil
		}
	}
	return "", fmt.Errorf("unknown strategy %q (known: %s)", s, strings.Join(StrategyNames(), ", "))
}

// Sampled reports whether attempts are drawn at random (random, pct)
// rather than taken from a frontier: such a search never exhausts.
func (s Strategy) Sampled() bool { return s == Random || s == PCT }

func (s Strategy) String() string {
	if s == "" {
		return string(FIFO)
	}
	return string(s)
}

// Set implements flag.Value.
func (s *Strategy) Set(v string) (err error) { *s, err = ParseStrategy(v); return err }

// Overlap says whether the search may release two units together.
type Overlap string

// Overlap modes.
const (
	NoOverlap Overlap = ""      // one unit at a time
	Pairs     Overlap = "pairs" // also pairs of units of different actors
)

// ParseOverlap reads an overlap mode; "" and "none" are NoOverlap.
func ParseOverlap(s string) (Overlap, error) {
	switch s {
	case "", "none":
		return NoOverlap, nil
	case string(Pairs):
		return Pairs, nil
	}
	return "", fmt.Errorf("unknown overlap %q (known: none, pairs)", s)
}

func (o Overlap) String() string {
	if o == NoOverlap {
		return "none"
	}
	return string(o)
}

// Set implements flag.Value.
func (o *Overlap) Set(v string) (err error) { *o, err = ParseOverlap(v); return err }

// Reduction says whether equivalent orders are skipped.
type Reduction string

// Reductions.
const (
	POR           Reduction = ""     // partial-order reduction (the default)
	NoReduction   Reduction = "none" // every order
	reductionName           = "por"
)

// ParseReduction reads a reduction name; "" and "por" are POR.
func ParseReduction(s string) (Reduction, error) {
	switch s {
	case "", reductionName:
		return POR, nil
	case string(NoReduction):
		return NoReduction, nil
	}
	return "", fmt.Errorf("unknown reduction %q (known: por, none)", s)
}

func (r Reduction) String() string {
	if r == POR {
		return reductionName
	}
	return string(r)
}

// Set implements flag.Value.
func (r *Reduction) Set(v string) (err error) { *r, err = ParseReduction(v); return err }
