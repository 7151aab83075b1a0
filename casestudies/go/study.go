package gostudies

import (
	"github.com/pginterleave/interleave"
)

// Study is one published race: the same scenario run the unsafe way (Racy)
// and the safe way (Fixed).
type Study struct {
	// Name is short and unique ("goose-up"); each variant's scenario is
	// named Name+"-racy" or Name+"-fixed".
	Name string
	// Module is the library's module path and version(s) as go.mod pins
	// them.
	Module string
	// Upstream are the issues and pull requests the race was reported or
	// fixed in, each with what it says.
	Upstream []string
	Racy     Variant
	Fixed    Variant
	// Options are the run options every measurement of this study uses
	// (the zero value: single-producer, every actor keeps to one
	// connection at a time, which the scheduler checks).
	Options interleave.Options
	// Bound is the choice bound of the fixed variant's search
	// (Search.MaxDepth): 0 when its search ends with every order explored,
	// otherwise the largest bound whose orders were all explored in the
	// time measured (docs/case-studies.md says why no more).
	Bound int
}

// Variant is one way of calling the library.
type Variant struct {
	Label    string // "goose.Up (package functions)"
	Scenario interleave.Scenario
}

// Variants are the study's two variants, racy first.
func (s *Study) Variants() []Variant { return []Variant{s.Racy, s.Fixed} }
