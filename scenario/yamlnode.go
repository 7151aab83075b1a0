package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// PosError is a mistake in a file, with the place it was found.
type PosError struct {
	Path      string
	Line, Col int
	Msg       string
}

func (e *PosError) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg) }

// decoder walks a YAML syntax tree, so that every mistake can name its line
// and column. Anchors are collected up front; aliases resolve to them.
type decoder struct {
	path    string
	anchors map[string]ast.Node
}

func newDecoder(path string, root ast.Node) *decoder {
	d := &decoder{path: path, anchors: map[string]ast.Node{}}
	d.collect(root, 0)
	return d
}

// collect records anchors. The tree has no cycles (aliases are leaves), the
// depth bound only protects the stack from absurd nesting.
func (d *decoder) collect(n ast.Node, depth int) {
	if n == nil || depth > 200 {
		return
	}
	switch v := n.(type) {
	case *ast.AnchorNode:
		if v.Name != nil {
			d.anchors[v.Name.GetToken().Value] = v.Value
		}
		d.collect(v.Value, depth+1)
	case *ast.TagNode:
		d.collect(v.Value, depth+1)
	case *ast.MappingNode:
		for _, mv := range v.Values {
			d.collect(mv, depth+1)
		}
	case *ast.MappingValueNode:
		d.collect(v.Key, depth+1)
		d.collect(v.Value, depth+1)
	case *ast.MappingKeyNode:
		d.collect(v.Value, depth+1)
	case *ast.SequenceNode:
		for _, x := range v.Values {
			d.collect(x, depth+1)
		}
	}
}

// pos is where n starts: a mapping starts at its first key.
func pos(n ast.Node) (int, int) {
	if m, ok := n.(*ast.MappingNode); ok && len(m.Values) > 0 && m.Values[0].Key != nil {
		n = m.Values[0].Key
	}
	if n == nil {
		return 1, 1
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return 1, 1
	}
	return tk.Position.Line, tk.Position.Column
}

func (d *decoder) errAt(n ast.Node, format string, args ...any) error {
	line, col := pos(n)
	return &PosError{Path: d.path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func tokenErr(path string, tk *token.Token, msg string) error {
	line, col := 1, 1
	if tk != nil && tk.Position != nil {
		line, col = tk.Position.Line, tk.Position.Column
	}
	return &PosError{Path: path, Line: line, Col: col, Msg: msg}
}

// resolve looks through anchors, aliases and tags to the value node.
func (d *decoder) resolve(n ast.Node) (ast.Node, error) {
	for hops := 0; n != nil; hops++ {
		if hops > 50 {
			return nil, d.errAt(n, "too many nested aliases")
		}
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.AliasNode:
			name := ""
			if v.Value != nil {
				name = v.Value.GetToken().Value
			}
			target, ok := d.anchors[name]
			if !ok {
				return nil, d.errAt(n, "alias *%s names no anchor", name)
			}
			n = target
		default:
			return n, nil
		}
	}
	return nil, nil
}

// isNull reports whether n is absent or an explicit null.
func (d *decoder) isNull(n ast.Node) bool {
	r, err := d.resolve(n)
	if err != nil {
		return false
	}
	_, null := r.(*ast.NullNode)
	return r == nil || null
}

func kindOf(n ast.Node) string {
	switch n.(type) {
	case nil, *ast.NullNode:
		return "nothing (null)"
	case *ast.MappingNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	}
	return "a " + n.Type().String()
}

// field is one key of a mapping.
type field struct {
	key   string
	keyAt ast.Node
	value ast.Node
}

// mapping returns the keys of a mapping in order, rejecting keys that are
// not in known.
func (d *decoder) mapping(n ast.Node, what string, known ...string) ([]field, error) {
	r, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	m, ok := r.(*ast.MappingNode)
	if !ok {
		return nil, d.errAt(orAt(r, n), "%s must be a mapping, found %s", what, kindOf(r))
	}
	var out []field
	for _, mv := range m.Values {
		k, err := d.resolve(mv.Key)
		if err != nil {
			return nil, err
		}
		if mk, ok := k.(*ast.MappingKeyNode); ok {
			if k, err = d.resolve(mk.Value); err != nil {
				return nil, err
			}
		}
		s, ok := k.(*ast.StringNode)
		if !ok {
			return nil, d.errAt(orAt(k, mv), "keys of %s must be names, found %s", what, kindOf(k))
		}
		if !contains(known, s.Value) {
			return nil, d.errAt(s, "unknown key %q in %s (known: %s)", s.Value, what, strings.Join(known, ", "))
		}
		out = append(out, field{key: s.Value, keyAt: s, value: mv.Value})
	}
	return out, nil
}

// orAt picks a node that has a position.
func orAt(n, fallback ast.Node) ast.Node {
	if n == nil || n.GetToken() == nil {
		return fallback
	}
	return n
}

func (d *decoder) list(n ast.Node, what string) ([]ast.Node, error) {
	r, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	s, ok := r.(*ast.SequenceNode)
	if !ok {
		return nil, d.errAt(orAt(r, n), "%s must be a list, found %s", what, kindOf(r))
	}
	return s.Values, nil
}

// str accepts a string (plain, quoted or a block literal).
func (d *decoder) str(n ast.Node, what string) (string, error) {
	r, err := d.resolve(n)
	if err != nil {
		return "", err
	}
	switch v := r.(type) {
	case *ast.StringNode:
		return v.Value, nil
	case *ast.LiteralNode:
		if v.Value == nil {
			return "", nil
		}
		return v.Value.Value, nil
	}
	return "", d.errAt(orAt(r, n), "%s must be a string, found %s", what, kindOf(r))
}

// text accepts any scalar but null and returns it as written (numbers and
// booleans keep their spelling): command arguments, environment values.
func (d *decoder) text(n ast.Node, what string) (string, error) {
	r, err := d.resolve(n)
	if err != nil {
		return "", err
	}
	switch v := r.(type) {
	case *ast.StringNode, *ast.LiteralNode:
		return d.str(v, what)
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return v.GetToken().Value, nil
	}
	return "", d.errAt(orAt(r, n), "%s must be a string, found %s", what, kindOf(r))
}

func (d *decoder) boolean(n ast.Node, what string) (bool, error) {
	r, err := d.resolve(n)
	if err != nil {
		return false, err
	}
	if b, ok := r.(*ast.BoolNode); ok {
		return b.Value, nil
	}
	return false, d.errAt(orAt(r, n), "%s must be true or false, found %s", what, kindOf(r))
}

// integer accepts a non-negative integer.
func (d *decoder) integer(n ast.Node, what string) (int, error) {
	r, err := d.resolve(n)
	if err != nil {
		return 0, err
	}
	if i, ok := r.(*ast.IntegerNode); ok {
		v, err := strconv.ParseInt(fmt.Sprint(i.Value), 10, 32)
		if err == nil && v >= 0 {
			return int(v), nil
		}
		return 0, d.errAt(r, "%s must be an integer from 0 to %d, found %s", what, int32(^uint32(0)>>1), i.GetToken().Value)
	}
	return 0, d.errAt(orAt(r, n), "%s must be an integer, found %s", what, kindOf(r))
}

// duration accepts Go durations ("30s", "1m30s") and the number 0.
func (d *decoder) duration(n ast.Node, what string) (time.Duration, error) {
	r, err := d.resolve(n)
	if err != nil {
		return 0, err
	}
	if i, ok := r.(*ast.IntegerNode); ok && i.GetToken().Value == "0" {
		return 0, nil
	}
	s, ok := r.(*ast.StringNode)
	if !ok {
		return 0, d.errAt(orAt(r, n), "%s must be a duration such as 30s or 2m, found %s", what, kindOf(r))
	}
	v, err := time.ParseDuration(s.Value)
	if err != nil || v < 0 {
		return 0, d.errAt(r, "%s: %q is not a duration (write it like 30s, 1m30s or 500ms)", what, s.Value)
	}
	return v, nil
}

// argv is a command: a non-empty list of strings.
func (d *decoder) argv(n ast.Node, what string) ([]string, error) {
	items, err := d.list(n, what)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, d.errAt(n, "%s is empty; give the program and its arguments, e.g. [node, run.js]", what)
	}
	out := make([]string, len(items))
	for i, it := range items {
		if out[i], err = d.text(it, fmt.Sprintf("argument %d of %s", i+1, what)); err != nil {
			return nil, err
		}
	}
	if out[0] == "" {
		return nil, d.errAt(items[0], "%s names no program", what)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
