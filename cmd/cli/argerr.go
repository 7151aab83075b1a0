package cli

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strings"

	"github.com/pginterleave/interleave/engine"
)

// The usage errors of every command read the same, here and in the
// interleave command: the flag named as it was typed, the nearest flag
// suggested, and the usage line after the error line.

// UsageError is a command line that cannot run: Msg is the error line,
// Usage the command's usage line ("interleave run DIR [flags]").
type UsageError struct {
	Msg   string
	Usage string
}

func (e *UsageError) Error() string { return e.Msg }

// flag's messages name a flag as "-NAME" whatever the user typed.
var goFlagName = regexp.MustCompile(`(: |for flag |for )-([A-Za-z0-9][-A-Za-z0-9_.]*)`)

// FlagError rewrites an error of the standard flag package: the flag as
// typed in args (--max-run, not -max-run) and, for an unknown one, the
// nearest flag of fs.
func FlagError(err error, args []string, names []string) string {
	msg := err.Error()
	m := goFlagName.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg
	}
	name := msg[m[4]:m[5]]
	typed := asTyped(name, args)
	if strings.HasPrefix(msg, "flag provided but not defined") {
		if why, ok := retiredFlags[name]; ok {
			return typed + " is gone: " + why
		}
		out := "unknown flag " + typed
		if s := Nearest(name, names); s != "" {
			out += "; did you mean --" + s + "?"
		}
		return out
	}
	return msg[:m[4]-1] + typed + msg[m[5]:]
}

// retiredFlags are flags of earlier versions, with what to do instead.
var retiredFlags = map[string]string{
	"keep-sessions": "kept sessions are the default; --fresh-sessions gives every actor connection a new backend",
}

// asTyped is how the user wrote flag name in args: "--max-run",
// "-max-run", or "--name" when it cannot be found.
func asTyped(name string, args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		bare, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if bare == name {
			return a[:len(a)-len(strings.TrimLeft(a, "-"))] + name
		}
	}
	return "--" + name
}

// Nearest is the name in names closest to typed: one that typed is a
// prefix of, or that starts typed, or within a few edits; "" when none is
// close.
func Nearest(typed string, names []string) string {
	best, bestD := "", 0
	for _, n := range names {
		d := editDistance(typed, n)
		if strings.HasPrefix(n, typed) || strings.HasPrefix(typed, n) {
			d = min(d, 1)
		}
		if best == "" || d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" || bestD > max(2, len(typed)/3) {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// FlagNames are the flags of a scenario command (run, replay, minimize).
func FlagNames(command string) []string {
	var names []string
	seen := map[string]bool{}
	for _, group := range commandFlags[command] {
		for _, d := range group {
			if !seen[d.name] {
				seen[d.name] = true
				names = append(names, d.name)
			}
		}
	}
	return names
}

// ParseArgs parses the flags of a scenario command (run, replay or
// minimize) as a scenario program does, before anything is built: the
// positional arguments in order, and where each is in args, or a
// UsageError whose usage line is usage.
func ParseArgs(command string, args []string, usage string) (positional []string, at []int, err error) {
	s := newSettings(engine.Options{})
	fs := flagSet(command, s)
	positional, at, err = parseInterspersedAt(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, err
		}
		return nil, nil, &UsageError{FlagError(err, args, FlagNames(command)), usage}
	}
	if err := explicitZeros(fs); err != nil {
		return nil, nil, &UsageError{err.Error(), usage}
	}
	if err := emptyValues(fs); err != nil {
		return nil, nil, &UsageError{err.Error(), usage}
	}
	return positional, at, nil
}

// emptyValues refuses a flag given an empty value where empty means "not
// given": an empty --plan would otherwise run a whole search.
func emptyValues(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "plan" && strings.TrimSpace(f.Value.String()) == "" && err == nil {
			err = usageError("--plan is empty: give the order, like alice,bob,alice,bob (each name its actor's next command), or a file with one 'ACTOR N' a line")
		}
	})
	return err
}

// parseInterspersedAt is parseInterspersed that also says where in args
// each positional argument was.
func parseInterspersedAt(fs *flag.FlagSet, args []string) ([]string, []int, error) {
	var positional []string
	var at []int
	end := len(args)
	for i, a := range args {
		if a == "--" {
			end = i
			break
		}
	}
	rest := args[:end]
	for {
		if err := fs.Parse(rest); err != nil {
			return nil, nil, err
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		positional = append(positional, rest[0])
		at = append(at, end-len(rest))
		rest = rest[1:]
	}
	for i := end + 1; i < len(args); i++ {
		positional = append(positional, args[i])
		at = append(at, i)
	}
	return positional, at, nil
}

// usageLine is the usage line of a scenario program's command.
func usageLine(program, command string) string {
	return fmt.Sprintf("%s %s %s", program, command, positional[command])
}
