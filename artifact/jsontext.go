package artifact

import (
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// EscapeJSONText rewrites JSON text so that no character that can move a
// terminal's cursor or reorder what it shows is left raw: C1 controls
// (U+0080–U+009F, U+009B is a CSI), format characters (Unicode category
// Cf: the bidirectional embeddings, overrides and isolates U+202A–U+202E
// and U+2066–U+2069, zero-width characters, U+FEFF, ...) and the line and
// paragraph separators become \uXXXX escapes (a surrogate pair above
// U+FFFF). encoding/json escapes the C0 controls but leaves these raw,
// while the text outputs print them as '?' (issue 19 item 8).
//
// data must be JSON as encoding/json writes it (valid UTF-8): outside
// strings JSON is ASCII, so every character replaced is inside a string,
// and the result decodes to the same values.
func EscapeJSONText(data []byte) []byte {
	i := 0
	for i < len(data) && data[i] < utf8.RuneSelf {
		i++
	}
	if i == len(data) {
		return data // ASCII: nothing to do (the common case)
	}
	out := make([]byte, 0, len(data)+len(data)/8)
	out = append(out, data[:i]...)
	for i < len(data) {
		if data[i] < utf8.RuneSelf {
			out = append(out, data[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if !escapedInJSON(r) {
			out = append(out, data[i:i+n]...)
		} else if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += n
	}
	return out
}

// escapedInJSON reports whether EscapeJSONText escapes r.
func escapedInJSON(r rune) bool {
	return r >= 0x80 && r <= 0x9F || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r)
}
