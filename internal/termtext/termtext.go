// Package termtext makes untrusted text (from a database, an artifact, an
// actor's output) safe to write to a terminal: control characters, escape
// sequences among them, invalid UTF-8 and bidirectional overrides become
// '?', so that the text cannot move the cursor, retitle the window or
// reorder what is shown.
package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s with every control character but tab (line breaks included)
// replaced by '?'.
func Line(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if unsafeRune(r, n) {
			r = '?'
		}
		b.WriteRune(r)
		s = s[n:]
	}
	return b.String()
}

// Lines is Line for text whose line breaks are kept: each line is made
// safe on its own (a carriage return too is replaced).
func Lines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Line(l)
	}
	return strings.Join(lines, "\n")
}

// isPlain reports whether s is printable ASCII and tabs only (the common
// case, returned as is).
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

func unsafeRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size <= 1: // invalid UTF-8
		return true
	case r == '\t':
		return false
	case unicode.IsControl(r): // C0, DEL and C1 (U+009B is a CSI)
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidirectional embeddings, overrides, isolates
		return true
	}
	return false
}
