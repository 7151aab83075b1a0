package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/spf13/cobra"
)

// hostile is text that would drive a terminal: colour, clear screen, a
// window title, a C1 CSI, a bidirectional override and invalid UTF-8.
const hostile = "\x1b[31mred\x1b[2J\x1b]0;pwned\x07 \u009b1m \u202eevil \xff\xfe"

// terminalSafe fails t if out holds a control character other than line
// breaks and tabs, or is not valid UTF-8.
func terminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s is not valid UTF-8:\n%q", what, out)
	}
	for _, r := range out {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) || (r >= 0x202a && r <= 0x202e) {
			t.Errorf("%s holds %U:\n%q", what, r, out)
			return
		}
	}
}

// execute runs a command of this CLI in-process and returns what it wrote.
func execute(t *testing.T, c *cobra.Command, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&out)
	c.SilenceUsage, c.SilenceErrors = true, true
	if err := c.Execute(); err != nil {
		t.Fatalf("%s %v: %v\n%s", c.Name(), args, err, out.String())
	}
	return out.String()
}

// TestUntrustedTextReachesNoTerminalRaw: database values, column names,
// server messages, an invariant's message and an actor's binary stderr,
// recorded against a real server, are printed by the summary, trace (text
// and --spec) and merge with their control bytes replaced.
func TestUntrustedTextReachesNoTerminalRaw(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	lit := "E'" + strings.NewReplacer("\x1b", `\x1b`, "\x07", `\x07`, "\xff", "", "\xfe", "").Replace(hostile) + "'"
	alice := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		var v string
		if err := c.QueryRow(ctx, `SELECT `+lit+` AS "`+"\x1b[2J"+`"`).Scan(&v); err != nil {
			return nil, err
		}
		_, err = c.Exec(ctx, `DO $$ BEGIN RAISE NOTICE '%', `+lit+`; RAISE EXCEPTION '%', `+lit+`; END $$`)
		return v, err
	}
	// 4 KB of binary on stderr, then a failure.
	bob := interleave.CommandActor("bob", []string{"sh", "-c", "head -c 4096 /dev/urandom >&2; exit 3"}, interleave.CommandOptions{})
	art := filepath.Join(t.TempDir(), "hostile.json")
	sc := interleave.Scenario{
		Name:              "hostile",
		Actors:            []interleave.Actor{{Name: "alice", Run: alice}, bob},
		HandleActorErrors: true,
		Invariant: func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
			return fmt.Errorf("the invariant says %s; alice: %v; bob: %v", hostile, rs[0].Err, rs[1].Err)
		},
	}
	o := interleave.Options{Server: interleave.ServerOptions{Use: srv}, Output: interleave.OutputOptions{Out: art}}
	res, err := interleave.RunOnce(ctx, sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, "\x1b[31mred") {
		t.Fatalf("outcome %s: %q", res.Outcome, res.Message)
	}
	var summary bytes.Buffer
	cli.PrintExplore(&summary, res)
	terminalSafe(t, "the summary", summary.String())

	text := execute(t, traceCommand(), art)
	if !strings.Contains(text, "RowDescription") || !strings.Contains(text, "NoticeResponse") {
		t.Fatalf("the trace lacks the messages it must show:\n%s", text)
	}
	terminalSafe(t, "interleave trace", text)
	spec := execute(t, traceCommand(), art, "--spec")
	if !strings.Contains(spec, "permutation") {
		t.Fatalf("the spec:\n%s", spec)
	}
	terminalSafe(t, "interleave trace --spec", spec)

	// merge prints the summaries' messages and names.
	dir := t.TempDir()
	f := cli.Summarize(&interleave.Result{Scenario: "x" + hostile, Outcome: interleave.OutcomeViolation, Message: hostile, Saved: art})
	f.Shards, f.Shard, f.FirstFailure = 1, 1, &cli.FailureRef{Kind: "violation", Message: hostile, Artifact: "a" + hostile + ".json"}
	b, _ := json.Marshal(f)
	os.WriteFile(filepath.Join(dir, "s.json"), b, 0o600)
	c := mergeCommand()
	var out bytes.Buffer
	c.SetArgs([]string{filepath.Join(dir, "s.json")})
	c.SetOut(&out)
	c.SetErr(&out)
	c.SilenceUsage, c.SilenceErrors = true, true
	c.Execute() // exit 1: a violation
	if !strings.Contains(out.String(), "shards merged") {
		t.Fatalf("merge:\n%s", out.String())
	}
	terminalSafe(t, "interleave merge", out.String())
}
