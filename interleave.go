// Package interleave reproduces race conditions in PostgreSQL application
// code. A Scenario names actors (the user's real operations), a setup and an
// invariant; Interleave runs the actors against a real server through a
// wire-protocol proxy per actor, decides the order in which their commands
// reach PostgreSQL, and searches for an order that breaks the invariant.
//
// A scenario program is a main package that calls Main; `interleave run DIR`
// builds and runs it. Explore, RunOnce, Replay and Minimize are the same
// operations for Go code and tests (see package interleavetest).
//
// This package is the API and nothing else: the types are those of package
// engine, which runs the attempts, and package search, which decides the
// orders.
package interleave

import (
	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/fingerprint"
	"github.com/pginterleave/interleave/search"
)

// Scenario is a race to look for: a setup, 2 to 8 actors, and the rule that
// must hold after all of them have finished.
type Scenario = engine.Scenario

// Actor is one concurrent participant: Run gets the connection string of
// its own proxy; what it returns goes to the Invariant and the artifact.
type Actor = engine.Actor

// ActorResult is what one actor's Run returned.
type ActorResult = engine.ActorResult

// Options configure where and how attempts run; the zero value is usable.
// They are grouped by concern: Server, Proxy, Search, Capture, Output,
// Source, and AttemptTimeout.
type Options = engine.Options

// The groups of Options.
type (
	ServerOptions  = engine.ServerOptions
	ProxyOptions   = engine.ProxyOptions
	SearchOptions  = search.Options
	CaptureOptions = engine.CaptureOptions
	OutputOptions  = engine.OutputOptions
	SourceOptions  = engine.SourceOptions
)

// ReplayOptions and MinimizeOptions add what a replay and a minimization
// need to Options.
type (
	ReplayOptions   = engine.ReplayOptions
	MinimizeOptions = engine.MinimizeOptions
)

// Results.
type (
	Result         = engine.Result
	ReplayResult   = engine.ReplayResult
	MinimizeResult = engine.MinimizeResult
)

// OrderStep names one executing command of an actor for an explicit order
// (Options.Search.Order): Unit counts from 0.
type OrderStep = search.OrderStep

// CommandOptions configure a command actor.
type CommandOptions = engine.CommandOptions

// Outcome is how an attempt, a search, a replay or a minimization ended.
type Outcome = engine.Outcome

// Outcomes.
const (
	OutcomePass         = engine.OutcomePass
	OutcomeViolation    = engine.OutcomeViolation
	OutcomeActorError   = engine.OutcomeActorError
	OutcomeHarnessError = engine.OutcomeHarnessError
	OutcomeInconclusive = engine.OutcomeInconclusive
	OutcomeIncompatible = engine.OutcomeIncompatible
)

// Exit codes: the command line's contract with CI.
const (
	ExitPass         = engine.ExitPass
	ExitViolation    = engine.ExitViolation
	ExitError        = engine.ExitError
	ExitIncompatible = engine.ExitIncompatible
	ExitInconclusive = engine.ExitInconclusive
)

// Profiles and modes for Options.
const (
	SingleProducer  = engine.SingleProducer
	MultiProducer   = engine.MultiProducer
	CaptureFailures = engine.CaptureFailures
	CaptureAll      = engine.CaptureAll
	CaptureOff      = engine.CaptureOff
)

// Version is Interleave's version, recorded in every artifact.
const Version = fingerprint.Version

// ErrHarness marks an Invariant error that is not a violation (the
// invariant could not judge the attempt): wrap it and the attempt ends as a
// harness error (exit 2).
var ErrHarness = engine.ErrHarness

// ErrIncompatible reports that a recording no longer applies.
var ErrIncompatible = search.ErrIncompatible
