package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/report"
	"github.com/pginterleave/interleave/search"
)

var verdicts = map[engine.Outcome]string{
	engine.OutcomeViolation: "failure", engine.OutcomeActorError: "failure (an actor returned an error)",
	engine.OutcomeHarnessError: "error", engine.OutcomeInconclusive: "inconclusive", engine.OutcomePass: "pass",
	engine.OutcomeIncompatible: "incompatible",
}

// PrintExplore writes the human summary of a search or a single run.
func PrintExplore(w io.Writer, r *engine.Result) {
	s := r.Summary
	verdict := verdicts[r.Outcome]
	if s != nil {
		tail := verdict
		switch {
		case r.Outcome == engine.OutcomePass && s.PrunedByDepth > 0:
			tail = fmt.Sprintf("pass: every order with at most %d choices was explored (%d longer prefixes not explored)", s.MaxDepth, s.PrunedByDepth)
		case r.Outcome == engine.OutcomePass && s.Reduction == search.POR && s.Check.Sampled > 0:
			tail = fmt.Sprintf("frontier exhausted: every order was explored (%d skipped orders sampled and %d drawn at random, no new behaviour); pass", s.Check.Sampled-s.Check.Random, s.Check.Random)
		case r.Outcome == engine.OutcomePass:
			tail = "frontier exhausted: every order was explored; pass"
		case r.Outcome == engine.OutcomeInconclusive:
			tail = "inconclusive: " + Flagged(r.Message)
		}
		fmt.Fprintf(w, "%s: %d attempted, %d completed; violations: %d; %s.\n", oneLine(r.Scenario), s.Attempted, s.Completed, s.Failures, oneLine(tail))
		strategy := s.Strategy.String()
		if r.Seed != 0 {
			strategy += fmt.Sprintf(" (seed %d)", r.Seed)
		}
		fmt.Fprintf(w, "Search: %s; pending prefixes: %d; maximum attempted depth: %d.\n", strategy, s.Pending, s.MaxDepth)
		if s.Reduction == search.POR && s.Alternatives > 0 {
			fmt.Fprintf(w, "Reduction: %d of %d alternative orders skipped as equivalent to orders explored (they differ only by swapping independent commands; --reduction none explores them).\n",
				s.Alternatives-s.Queued, s.Alternatives)
		}
		printFaults(w, r)
		for _, n := range r.Notes {
			fmt.Fprintf(w, "Note: %s.\n", oneLine(n))
		}
		if s.LockCorrections > 0 {
			fmt.Fprintf(w, "Lock check: %d commands held a lock outside what their statements were classified as touching; they and the rest of their transactions were treated as depending on everything.\n", s.LockCorrections)
		}
		if c := s.Check; c.Unrepeatable > 0 {
			fmt.Fprintf(w, "Check: %d of %d sampled skipped orders behaved as no explored order did, but so did the orders they were skipped from when run again: the actors' results are not a function of the order alone, so the check concluded nothing from them.\n", c.Unrepeatable, c.Sampled)
		}
		if s.StopReason == search.StopHarness && s.StopErr != nil && r.Outcome != engine.OutcomeHarnessError {
			// The failure reported was found before: say why the search
			// did not go on (--keep-going).
			fmt.Fprintf(w, "The search was stopped by a harness error after %d attempts: %s.\n", s.Attempted, oneLine(strings.TrimSuffix(s.StopErr.Error(), ".")))
		}
		if s.Retries > 0 && r.Outcome == engine.OutcomePass {
			// A pair's two statements interleave as PostgreSQL runs them:
			// the pass covers the interleavings those runs happened to
			// take, not every one.
			fmt.Fprintf(w, "Pairs: plans that end with two commands released together ran %d more times in all; how PostgreSQL interleaves such a pair is its own choice, so for pairs this pass is a sample, not a proof (--pair-repeats, or more --max-runs with --strategy random, samples more).\n", s.Retries)
		}
		if s.Reruns > 0 {
			// Most often a deadlock's timer that ended out of the victim
			// order on a busy machine: the plan ran again with longer
			// deadlock timeouts.
			fmt.Fprintf(w, "Reruns: %d extra runs of plans PostgreSQL did not follow the first time (a deadlock victim other than the planned one, or row-lock waits granted out of queue order, most often on a busy machine); %d plans were not followed in the end.\n", s.Reruns, s.Diverged)
		}
		if (s.Inconclusive > 0 || s.Diverged > 0) && r.Outcome != engine.OutcomeInconclusive {
			fmt.Fprintf(w, "Not judged: %d attempts inconclusive; %d plans could not be followed.\n", s.Inconclusive, s.Diverged)
		}
	} else if r.Planned {
		fmt.Fprintf(w, "%s: one attempt in the order --plan names; %s.\n", oneLine(r.Scenario), verdict)
	} else {
		fmt.Fprintf(w, "%s: one attempt in the default order; %s.\n", oneLine(r.Scenario), verdict)
	}
	if a := r.Artifact; a != nil {
		printCounts(w, a)
	}
	if r.Message != "" && r.Outcome != engine.OutcomeInconclusive {
		fmt.Fprintln(w, oneLineKeepBreaks(Flagged(r.Message)))
	}
	if r.Artifact != nil && r.Outcome.Failed() {
		printOrder(w, r.Artifact, r.Saved)
		printAnomaly(w, r.Artifact, r.AnomalyError)
	}
	printCut(w, r.Artifact)
	if r.Saved != "" {
		fmt.Fprintf(w, "Saved %s\n", oneLine(r.Saved))
		if a := r.Artifact; a != nil && r.Outcome.Failed() && a.Scenario.Program != "" {
			fmt.Fprintf(w, "Why, and what would fix it: interleave explain %s %s\n", oneLine(report.ShellQuote(a.Scenario.Program)), oneLine(report.ShellQuote(r.Saved)))
		}
	}
}

// printAnomaly names the failure's anomaly in one line (what the search
// found from the order's dependencies, without running it again), or says
// why it could not be named.
func printAnomaly(w io.Writer, a *artifact.Artifact, why string) {
	switch {
	case a.Explanation != nil:
		fmt.Fprintln(w, oneLine(a.Explanation.Anomaly.Line()))
		if p := a.Explanation.CriticalPair; p != nil {
			fmt.Fprintln(w, oneLine(p.Line()))
		}
	case why != "":
		fmt.Fprintf(w, "Note: %s.\n", oneLine(strings.TrimSuffix(why, ".")))
	}
}

// printCut says what the artifact does not keep in full, to stay within the
// documented limits.
func printCut(w io.Writer, a *artifact.Artifact) {
	if a == nil {
		return
	}
	for _, c := range a.Cut {
		fmt.Fprintf(w, "Not kept in full (limits: docs/reliability.md): %s.\n", oneLine(c))
	}
}

// printCounts says how many units the recorded order released; the report
// shows the same counts.
func printCounts(w io.Writer, a *artifact.Artifact) {
	c := a.ReleaseCounts()
	if c.Preparations > 0 {
		fmt.Fprintf(w, "Recorded release units: %d (plus %d statement preparations); actor switches: %d.\n", c.Executing, c.Preparations, c.Switches)
		return
	}
	fmt.Fprintf(w, "Recorded release units: %d; actor switches: %d.\n", c.Executing, c.Switches)
}

// PrintReplay writes the human summary of a replay.
func PrintReplay(w io.Writer, r *engine.ReplayResult) {
	kind := "replay"
	if r.Guided {
		kind = "guided replay"
	}
	switch r.Outcome {
	case engine.OutcomeIncompatible:
		fmt.Fprintf(w, "%s: incompatible (%s): %s.\n", oneLine(r.Scenario), kind, oneLine(Flagged(r.Message)))
		for _, d := range r.Differences {
			fmt.Fprintf(w, "- %s\n", oneLine(d))
		}
		if !r.Guided {
			fmt.Fprintln(w, incompatibleAdvice(r))
		}
		return
	case engine.OutcomeViolation, engine.OutcomeActorError:
		same := "a different failure than recorded"
		if r.SameFailure {
			same = "the same failure as recorded"
		}
		fmt.Fprintf(w, "%s: %s (%s): %d commands, %s.\n", oneLine(r.Scenario), r.Outcome, kind, r.Commands, same)
	default:
		fmt.Fprintf(w, "%s: %s (%s): %d commands; the recorded failure did not happen.\n", oneLine(r.Scenario), r.Outcome, kind, r.Commands)
	}
	if r.Guided {
		fmt.Fprintf(w, "Followed %d of %d recorded commands in the recorded order.\n", r.Followed, r.Of)
	}
	if r.PairStep >= 0 {
		rate := 0
		if r.SameFailure {
			rate = 1
		}
		fmt.Fprintf(w, "The recording releases two units together at step %d: PostgreSQL interleaves them its own way, so a replay may reproduce the failure only some of the time. Reproduced in %d of %d attempts.\n", r.PairStep, rate, r.Attempts)
	}
	if r.Message != "" {
		fmt.Fprintln(w, oneLineKeepBreaks(Flagged(r.Message)))
	}
	printCut(w, r.Artifact)
	if r.Saved != "" {
		fmt.Fprintf(w, "Saved %s\n", oneLine(r.Saved))
	}
}

// incompatibleAdvice says what to do about an incompatible exact replay,
// matching what differs: the server (its version, or only its settings)
// or the program.
func incompatibleAdvice(r *engine.ReplayResult) string {
	if r.RecordedServer == "" && r.Server == "" {
		return "Run the replay with --guided to follow the recorded order against the changed code, or record again."
	}
	const rest = "follow the recorded order on this server with --guided, or record again on this one."
	if r.RecordedServer == r.Server {
		return "Only the server's settings differ from the recording's: replay against a server with the recorded settings (--database-url), " + rest
	}
	rec, now := serverRelease(r.RecordedServer), serverRelease(r.Server)
	was := fmt.Sprintf("The recording was made on PostgreSQL %s, and this server is PostgreSQL %s", oneLine(rec), oneLine(now))
	if rec == now || rec == "" || now == "" {
		was = "The recording was made on another build of the server (its version string is above)"
	}
	return was + ": replay against a server of the recording's version and build (--pg-bin DIR of its binaries, or --database-url), " + rest
}

// serverRelease is the release in a version() string ("PostgreSQL 17.2
// on x86_64-pc-linux-gnu, ...": 17.2), or "" when it has none.
func serverRelease(version string) string {
	rest, ok := strings.CutPrefix(version, "PostgreSQL ")
	if !ok {
		return ""
	}
	rel, _, _ := strings.Cut(rest, " ")
	return strings.TrimRight(rel, ",")
}

// PrintMinimize writes the human summary of a minimization.
func PrintMinimize(w io.Writer, r *engine.MinimizeResult) {
	if r.Outcome == engine.OutcomeIncompatible {
		fmt.Fprintf(w, "%s: cannot minimize: %s.\n", oneLine(r.Scenario), oneLine(Flagged(r.Message)))
		for _, d := range r.Differences {
			fmt.Fprintf(w, "- %s\n", oneLine(d))
		}
		return
	}
	tail := "locally-minimal (removing any one remaining choice loses the failure)"
	if !r.LocallyMinimal {
		tail = "stopped: " + r.StopReason + "; not proven locally minimal"
	} else if r.StopReason != "" {
		tail += "; " + r.StopReason
	}
	fmt.Fprintf(w, "Reduced %d choices to %d in %d attempts; %s.\n", r.Before, r.After, r.Attempts, tail)
	if r.Message != "" {
		fmt.Fprintln(w, oneLineKeepBreaks(Flagged(r.Message)))
	}
	if r.Artifact != nil && r.Artifact.Outcome.Failed() {
		printOrder(w, r.Artifact, r.Saved)
	}
	printCut(w, r.Artifact)
	if r.Saved != "" {
		fmt.Fprintf(w, "Saved %s\n", oneLine(r.Saved))
	}
}

// oneLineKeepBreaks escapes control characters of untrusted text (an
// invariant's message, a database value) but keeps its line breaks.
func oneLineKeepBreaks(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = escapeControls(l)
	}
	return strings.Join(lines, "\n")
}
