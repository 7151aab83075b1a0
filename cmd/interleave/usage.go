package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/internal/termtext"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// One usage style for every command: an error names the flag as it was
// typed and suggests the nearest one; a missing or extra argument is one
// error line; the usage line follows either (run prints both, see
// printUsageError). Run, replay and minimize parse their own flags
// (cli.ParseArgs) in the same words.

// uniformUsageErrors gives root and every command below it these errors.
func uniformUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &cli.UsageError{Msg: pflagMessage(err, c), Usage: c.UseLine()}
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Args == nil {
			return
		}
		check := c.Args
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return &cli.UsageError{Msg: argsMessage(c, args), Usage: c.UseLine()}
			}
			return nil
		}
	}
	walk(root)
}

var (
	pflagUnknown   = regexp.MustCompile(`^unknown flag: --(.+)$`)
	pflagShorthand = regexp.MustCompile(`^unknown shorthand flag: '.' in (-.+)$`)
)

// pflagMessage is a flag error of cobra's parser, with the nearest flag of
// c suggested for an unknown one.
func pflagMessage(err error, c *cobra.Command) string {
	msg := err.Error()
	var typed, name string
	if m := pflagUnknown.FindStringSubmatch(msg); m != nil {
		typed, name = "--"+m[1], m[1]
	} else if m := pflagShorthand.FindStringSubmatch(msg); m != nil {
		// -max-run: one dash, read as shorthand flags m, a, x...
		typed = m[1]
		name, _, _ = strings.Cut(strings.TrimLeft(typed, "-"), "=")
	} else {
		return msg
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	out := "unknown flag " + termtext.Line(typed)
	if s := cli.Nearest(name, names); s != "" {
		out += "; did you mean --" + s + "?"
	}
	return out
}

// argsMessage says which arguments c wanted, from its Use line: the
// upper-case words before the first flag ("report ARTIFACT --out FILE").
func argsMessage(c *cobra.Command, args []string) string {
	var need, optional []string
	for _, w := range strings.Fields(c.Use)[1:] {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[-") || w == "|" {
			break
		}
		if strings.HasPrefix(w, "[") {
			optional = append(optional, w)
		} else if strings.ToUpper(w) == w {
			need = append(need, w)
		}
	}
	switch {
	case len(args) < len(need) || len(need) > 0 && strings.HasSuffix(need[0], "...") && len(args) == 0:
		return fmt.Sprintf("%s needs %s", c.Name(), strings.Join(need, " and "))
	case len(need)+len(optional) == 0:
		return fmt.Sprintf("%s takes no arguments; got %s", c.Name(), quoteArgs(args))
	}
	return fmt.Sprintf("%s takes %s; got %d arguments: %s", c.Name(), strings.Join(append(need, optional...), " "), len(args), quoteArgs(args))
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", termtext.Line(a))
	}
	return strings.Join(q, " ")
}
