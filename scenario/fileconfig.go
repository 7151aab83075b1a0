package scenario

import (
	"flag"
	"fmt"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/search"
)

// fileConfig is a checked scenario file.
type fileConfig struct {
	dir               string // the file's directory (absolute)
	name              string
	setupSQL          string
	setupFiles        []setupFile
	setupCommands     []command
	actors            []actorConfig
	checks            []check
	invariantCommand  *command
	handleActorErrors bool
	options           interleave.Options
}

type setupFile struct {
	name, path, sql string
}

// command is a program to run: argv, its directory (absolute) and extra
// environment variables.
type command struct {
	argv []string
	dir  string
	env  []string
}

type actorConfig struct {
	name string
	cmd  command
}

// check is one invariant query and what it must return.
type check struct {
	query     string
	expect    [][]*string // nil entries are NULL
	hasExpect bool
	count     int
	hasCount  bool
	message   string
}

func (c *fileConfig) decodeInvariant(d *decoder, n ast.Node) error {
	if d.isNull(n) {
		return nil
	}
	fields, err := d.mapping(n, "invariant", "sql", "command")
	if err != nil {
		return err
	}
	for _, f := range fields {
		switch f.key {
		case "sql":
			items, err := d.list(f.value, "invariant sql")
			if err != nil {
				return err
			}
			for i, it := range items {
				ch, err := d.check(it, fmt.Sprintf("invariant query %d", i+1))
				if err != nil {
					return err
				}
				c.checks = append(c.checks, ch)
			}
		case "command":
			argv, err := d.argv(f.value, "the invariant's command")
			if err != nil {
				return err
			}
			c.invariantCommand = &command{argv: argv, dir: c.dir}
		}
	}
	return nil
}

func (d *decoder) check(n ast.Node, what string) (check, error) {
	var ch check
	fields, err := d.mapping(n, what, "query", "expect", "expect-count", "message")
	if err != nil {
		return ch, err
	}
	for _, f := range fields {
		switch f.key {
		case "query":
			ch.query, err = d.str(f.value, what+"'s query")
		case "expect":
			ch.hasExpect = true
			ch.expect, err = d.rows(f.value, what+"'s expect")
		case "expect-count":
			ch.hasCount = true
			ch.count, err = d.integer(f.value, what+"'s expect-count")
		case "message":
			ch.message, err = d.str(f.value, what+"'s message")
		}
		if err != nil {
			return ch, err
		}
	}
	switch {
	case ch.query == "":
		return ch, d.errAt(n, "%s has no query", what)
	case ch.hasExpect && ch.hasCount:
		return ch, d.errAt(n, "%s has both expect and expect-count; give one", what)
	case !ch.hasExpect && !ch.hasCount:
		return ch, d.errAt(n, "%s has neither expect (the rows) nor expect-count (their number)", what)
	}
	return ch, nil
}

// rows reads expected rows: a list of lists of text values, null for NULL.
func (d *decoder) rows(n ast.Node, what string) ([][]*string, error) {
	items, err := d.list(n, what)
	if err != nil {
		return nil, err
	}
	out := [][]*string{}
	for i, it := range items {
		cols, err := d.list(it, fmt.Sprintf("row %d of %s", i+1, what))
		if err != nil {
			return nil, err
		}
		row := make([]*string, len(cols))
		for j, col := range cols {
			if d.isNull(col) {
				continue
			}
			r, err := d.resolve(col)
			if err != nil {
				return nil, err
			}
			if b, ok := r.(*ast.BoolNode); ok {
				pg := "f"
				if b.Value {
					pg = "t"
				}
				return nil, d.errAt(r, "%s: values are PostgreSQL's text output; write %q, not %s", what, pg, b.GetToken().Value)
			}
			v, err := d.text(col, fmt.Sprintf("value %d of row %d of %s", j+1, i+1, what))
			if err != nil {
				return nil, err
			}
			row[j] = &v
		}
		out = append(out, row)
	}
	return out, nil
}

func (c *fileConfig) decodeOptions(d *decoder, n ast.Node) error {
	if d.isNull(n) {
		return nil
	}
	fields, err := d.mapping(n, "options", "connections", "protocol-profile", "attempt-timeout", "max-runs", "max-time", "max-depth", "overlap", "strategy", "reduction", "faults", "max-faults")
	if err != nil {
		return err
	}
	o := &c.options
	oneOf := func(f field, allowed ...string) (string, error) {
		v, err := d.str(f.value, f.key)
		if err != nil {
			return "", err
		}
		if !contains(allowed, v) {
			return "", d.errAt(orAt(f.value, f.keyAt), "%s %q is not known (known: %s)", f.key, v, joinNames(allowed))
		}
		return v, nil
	}
	// set checks the name against the allowed ones (for a positioned
	// error), then parses it into the option's type.
	set := func(f field, v flag.Value, allowed ...string) error {
		name, err := oneOf(f, allowed...)
		if err != nil {
			return err
		}
		return v.Set(name)
	}
	for _, f := range fields {
		var dur time.Duration
		switch f.key {
		case "connections":
			err = set(f, &o.Proxy.Connections, "single-producer", "multi-producer")
		case "protocol-profile":
			err = set(f, &o.Proxy.Protocol, "sync-cycle", "flush-stages")
		case "overlap":
			if d.isNull(f.value) {
				continue
			}
			err = set(f, &o.Search.Overlap, "", "none", "pairs")
		case "reduction":
			err = set(f, &o.Search.Reduction, "por", "none")
		case "strategy":
			err = set(f, &o.Search.Strategy, search.StrategyNames()...)
		case "attempt-timeout":
			dur, err = d.duration(f.value, f.key)
			o.AttemptTimeout = dur
		case "max-time":
			dur, err = d.duration(f.value, f.key)
			o.Search.MaxTime = dur
		case "max-runs":
			o.Search.MaxAttempts, err = d.integer(f.value, f.key)
		case "max-depth":
			o.Search.MaxDepth, err = d.integer(f.value, f.key)
		case "faults", "max-faults":
			err = decodeFaults(d, f, &o.Search)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func joinNames(list []string) string {
	s := ""
	for i, x := range list {
		if i > 0 {
			s += ", "
		}
		if x == "" {
			x = `""`
		}
		s += x
	}
	return s
}
