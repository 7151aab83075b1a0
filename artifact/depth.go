package artifact

import (
	"bytes"
	"encoding/json"
	"io"
)

// MaxValueDepth is how deep the containers of an actor's value nest before
// a reader shows "…" in their place. Indenting JSON costs two spaces a
// level a line, so a 20 KB value nested 10,000 deep became 200 MB of
// report (issue 19 item 3).
const MaxValueDepth = 64

// ValueDepth is how deep the arrays and objects of the JSON text raw nest
// (0 for a scalar). It scans bytes and allocates nothing.
func ValueDepth(raw []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > deepest {
				deepest = depth
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// CutDepth returns the JSON value raw with every array or object nested
// deeper than max levels replaced by the string "…", and whether it cut
// anything. A value within max is returned as it is. It reads raw as a
// stream of tokens, without recursion, so any depth is safe; raw that is
// not JSON is returned as it is (Validate decides about it).
func CutDepth(raw []byte, max int) ([]byte, bool) {
	if ValueDepth(raw) <= max {
		return raw, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type level struct {
		object bool
		n      int // tokens written at this level: keys and values
	}
	var out bytes.Buffer
	var stack []level
	skip := 0 // nesting of the container being left out
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out.Bytes(), true
		}
		if err != nil {
			return raw, false
		}
		d, isDelim := tok.(json.Delim)
		if skip > 0 {
			if isDelim && (d == '[' || d == '{') {
				skip++
			} else if isDelim {
				skip--
			}
			continue
		}
		if isDelim && (d == ']' || d == '}') {
			out.WriteByte(byte(d))
			stack = stack[:len(stack)-1]
			continue
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			switch {
			case top.object && top.n%2 == 1:
				out.WriteByte(':')
			case top.n > 0:
				out.WriteByte(',')
			}
			top.n++
		}
		if isDelim { // [ or {
			if len(stack) >= max {
				out.WriteString(`"…"`)
				skip = 1
				continue
			}
			out.WriteByte(byte(d))
			stack = append(stack, level{object: d == '{'})
			continue
		}
		b, err := json.Marshal(tok)
		if err != nil {
			return raw, false
		}
		out.Write(b)
	}
}
