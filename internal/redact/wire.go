package redact

import (
	"bytes"
	"strings"
)

// MaskByte replaces every byte of a secret in wire bytes: the protocol's
// length fields stay right, so a masked capture still frames and decodes.
const MaskByte = '*'

// MinLiteral is the shortest PASSWORD literal whose value is also removed
// wherever else it occurs: a shorter one ('app', 'x') is masked where it
// stands, but removing every occurrence of it would mask role and table
// names throughout a capture.
const MinLiteral = 6

// With is s plus the forms of more secrets (an empty value adds nothing).
func (s Secrets) With(values ...string) Secrets {
	out := Secrets{forms: append([]string(nil), s.forms...)}
	seen := map[string]bool{}
	for _, f := range out.forms {
		seen[f] = true
	}
	for _, v := range values {
		for _, f := range Password(v).forms {
			if !seen[f] {
				seen[f] = true
				out.forms = append(out.forms, f)
			}
		}
	}
	sortLongestFirst(out.forms)
	return out
}

// Mask overwrites, in place, every form of the secrets in b and the value
// of every PASSWORD literal b holds with MaskByte, keeping b's length. It
// reports whether it changed anything.
func (s Secrets) Mask(b []byte) bool {
	changed := maskLiterals(b)
	for _, f := range s.forms {
		for i := 0; ; {
			j := bytes.Index(b[i:], []byte(f))
			if j < 0 {
				break
			}
			fill(b[i+j : i+j+len(f)])
			i += j + len(f)
			changed = true
		}
	}
	return changed
}

// Masked is b, or a masked copy of b when it holds a secret: b itself is
// never written.
func (s Secrets) Masked(b []byte) []byte {
	if !s.holds(b) {
		return b
	}
	c := append([]byte(nil), b...)
	s.Mask(c)
	return c
}

// holds reports whether Mask would change b.
func (s Secrets) holds(b []byte) bool {
	for _, f := range s.forms {
		if bytes.Contains(b, []byte(f)) {
			return true
		}
	}
	return len(PasswordLiterals(b)) > 0
}

// maskLiteralText is text with the value of every PASSWORD literal masked.
func maskLiteralText(text string) string {
	spans := PasswordLiterals([]byte(text))
	if len(spans) == 0 {
		return text
	}
	b := []byte(text)
	for _, sp := range spans {
		fill(b[sp[0]:sp[1]])
	}
	return string(b)
}

// Literals returns the values of the PASSWORD literals in b (as the server
// reads them: a doubled quote is one), those of at least MinLiteral bytes.
func Literals(b []byte) []string {
	var out []string
	for _, sp := range PasswordLiterals(b) {
		v := string(b[sp[0]:sp[1]])
		if sp[2] == '\'' {
			v = strings.ReplaceAll(v, "''", "'")
		}
		if len(v) >= MinLiteral {
			out = append(out, v)
		}
	}
	return out
}

func fill(b []byte) {
	for i := range b {
		b[i] = MaskByte
	}
}

// maskLiterals masks the value of every PASSWORD literal in b.
func maskLiterals(b []byte) bool {
	spans := PasswordLiterals(b)
	for _, sp := range spans {
		fill(b[sp[0]:sp[1]])
	}
	return len(spans) > 0
}
