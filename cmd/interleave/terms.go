package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// termsPointer ends the human output of run, replay, minimize and demo: the
// summary above it uses these words.
const termsPointer = "Terms (release unit, statement preparation, choice, pending prefix, depth, exhausted): interleave help terms"

// printTermsPointer writes termsPointer after a verdict (exit 0, 1, 3 or
// 4), unless the output is JSON, help, or an isolation-tester spec's output
// (compared byte for byte with the tester's).
func printTermsPointer(w io.Writer, args []string, code int) {
	if code == 2 || code > 4 || jsonRequested(args) || wantsHelp(args) || len(args) > 0 && strings.EqualFold(filepath.Ext(args[0]), ".spec") {
		return
	}
	fmt.Fprintln(w, termsPointer)
}

// termsTopic is `interleave help terms`: the words the summaries, the
// report and the docs use, offline.
func termsTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "terms",
		Short: "The words Interleave's output uses: release unit, choice, pending prefix, depth, ...",
		Long: `The words Interleave's summaries, reports and docs use.

actor
    One of your operations, run concurrently with the others. It connects
    through its own proxy (the connection string it is given).
release unit
    What the proxy holds and the scheduler releases to PostgreSQL as one step:
    a simple Query, or an extended-protocol cycle (Parse, Bind, Describe,
    Execute, ... up to and including Sync), or a FunctionCall. It completes at
    ReadyForQuery. "Recorded release units: 4" counts those that executed.
statement preparation
    A unit that only prepares a statement (Parse and Describe, no Execute), as
    drivers like pgx send before the first use of a query. It is released
    without a choice, so prepares do not multiply the orders; summaries count
    them apart ("plus 4 statement preparations").
actor switch
    Two consecutive releases by different actors.
decision
    The scheduler picking which pending unit goes next, once every actor is
    holding a unit, waiting on a lock PostgreSQL reports, or finished.
default order (fifo)
    The unit that has been pending longest goes first; ties go to the actor
    listed first. It already interleaves actors.
choice
    A decision that differs from the default order. A schedule is stored as
    its decisions and its choices; minimize removes choices.
depth
    The number of choices in a schedule. "maximum attempted depth: 0" means
    only the default order ran; --max-depth bounds it.
pending prefix
    A schedule the search has queued but not run yet (the frontier).
    "pending prefixes: 2" after a failure means the search stopped there.
exhausted
    Every order was explored (frontier empty): a pass then covers every order,
    within the reduction below. Otherwise a pass covers only what ran.
reduction (por)
    Orders that differ only by swapping independent commands behave the same;
    the search runs one of them. --reduction none runs them all.
lock wait
    A released unit that PostgreSQL reports blocked by another actor
    (pg_isolation_test_session_is_blocked), shown as [waited on ACTOR].
inconclusive (exit 4)
    An attempt hit its deadline, a lock was held by a session that is not an
    actor, or a budget stopped the search before every order ran.
diverged
    A plan (a choice list) that could not be followed because the commands
    came out differently; counted apart from inconclusive attempts.
artifact
    The JSON file of one attempt: the schedule, every unit's SQL and result,
    the wire capture, and the fingerprint.
fingerprint
    What must not change for an exact replay: sources, go.sum or lockfiles, Go
    and Interleave versions, PostgreSQL version and settings, the database
    after setup. A change makes the replay incompatible (exit 3).
guided replay
    --guided: the recorded order of actors against changed code, as far as it
    still fits, then the default order; it reports how far it followed.
locally minimal
    Removing any one remaining choice loses the failure.

Exit codes: 0 pass, 1 violation, 2 usage/actor/harness error, 3 incompatible
replay, 4 inconclusive or budget spent, 128+N after signal N.`,
	}
}

// addCompletionExamples gives cobra's completion commands examples, like
// every other command.
func addCompletionExamples(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Example = "  interleave completion bash > /etc/bash_completion.d/interleave\n  interleave completion zsh > \"${fpath[1]}/_interleave\""
		examples := map[string]string{
			"bash":       "  source <(interleave completion bash)",
			"zsh":        "  interleave completion zsh > \"${fpath[1]}/_interleave\"",
			"fish":       "  interleave completion fish > ~/.config/fish/completions/interleave.fish",
			"powershell": "  interleave completion powershell | Out-String | Invoke-Expression",
		}
		for _, sub := range c.Commands() {
			sub.Example = examples[sub.Name()]
		}
	}
}
