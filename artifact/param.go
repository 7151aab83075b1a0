package artifact

import "strings"

// BinaryParam reads how a unit records a parameter sent in binary (Unit.Params):
// `\xHEX (binary; as int4 N)` and `\xHEX (binary; as int8 N)` give the hex,
// the integer type and N; `\xHEX (binary)` gives the hex alone. A text
// parameter (recorded as its text, or NULL) gives ok false.
func BinaryParam(p string) (hex, asType, value string, ok bool) {
	if !strings.HasPrefix(p, `\x`) {
		return "", "", "", false
	}
	if h, ok := strings.CutSuffix(p, " (binary)"); ok {
		return h, "", "", true
	}
	h, rest, found := strings.Cut(p, " (binary; as ")
	if !found || !strings.HasSuffix(rest, ")") {
		return "", "", "", false
	}
	typ, val, found := strings.Cut(strings.TrimSuffix(rest, ")"), " ")
	if !found {
		return "", "", "", false
	}
	return h, typ, val, true
}
