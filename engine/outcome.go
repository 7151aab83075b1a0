package engine

// Outcome is how an attempt, a search, a replay or a minimization ended.
type Outcome string

const (
	OutcomePass         Outcome = "pass"          // the invariant held
	OutcomeViolation    Outcome = "violation"     // the invariant failed
	OutcomeActorError   Outcome = "actor-error"   // an actor returned an error
	OutcomeHarnessError Outcome = "harness-error" // setup, the proxy or the server failed
	OutcomeInconclusive Outcome = "inconclusive"  // a deadline, a foreign lock holder, a budget
	OutcomeIncompatible Outcome = "incompatible"  // a replay whose recording no longer applies
)

// Exit codes: the command line's contract with CI.
const (
	ExitPass         = 0
	ExitViolation    = 1
	ExitError        = 2
	ExitIncompatible = 3
	ExitInconclusive = 4
)

// ExitCode maps an outcome to the process exit code.
func (o Outcome) ExitCode() int {
	switch o {
	case OutcomePass:
		return ExitPass
	case OutcomeViolation:
		return ExitViolation
	case OutcomeIncompatible:
		return ExitIncompatible
	case OutcomeInconclusive:
		return ExitInconclusive
	}
	return ExitError
}

// Failed reports whether the outcome is a failure worth keeping.
func (o Outcome) Failed() bool {
	return o == OutcomeViolation || o == OutcomeActorError
}
