package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every command's --help shows an example and its flags, and needs nothing
// built: the help runs with an empty PATH, so a go build would fail.
func TestEveryCommandHelpTeaches(t *testing.T) {
	bin := interleaveBinary(t)
	var walk func(c *cobra.Command)
	var checked int
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Name() == "help" || !c.Runnable() && !c.HasSubCommands() {
			return // cobra's help, and help topics (interleave help terms)
		}
		if c.Example == "" {
			t.Errorf("%s has no Example", c.CommandPath())
		}
		args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "interleave")), "--help")
		r := runIn(t, t.TempDir(), []string{"PATH="}, bin, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Example") {
			t.Errorf("interleave %s: want exit 0 and examples: %s", strings.Join(args, " "), r)
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if !strings.Contains(r.stdout, "--"+f.Name) {
				t.Errorf("interleave %s does not list --%s", strings.Join(args, " "), f.Name)
			}
		})
		if c.DisableFlagParsing && c.Name() != "demo" {
			for _, f := range []string{"--out", "--json", "--database-url", "--attempt-timeout"} {
				if !strings.Contains(r.stdout, f) {
					t.Errorf("interleave %s does not list %s", strings.Join(args, " "), f)
				}
			}
		}
		checked++
	}
	walk(newRoot())
	if checked < 18 {
		t.Fatalf("checked %d commands; the CLI has more", checked)
	}
	r := runIn(t, t.TempDir(), []string{"PATH="}, bin, "help", "terms")
	for _, w := range []string{"release unit", "statement preparation", "choice", "pending prefix", "locally minimal"} {
		if r.code != 0 || !strings.Contains(r.stdout, w) {
			t.Fatalf("interleave help terms lacks %q: %s", w, r)
		}
	}
}
