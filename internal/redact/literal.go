package redact

import "bytes"

// PasswordLiterals finds the string constants that follow the keyword
// PASSWORD in b (CREATE ROLE, ALTER ROLE, CREATE USER, ALTER USER ...
// [ENCRYPTED] PASSWORD '...', as psql's \password sends too), in SQL text
// or in protocol bytes that carry it. Each span is the value's start and
// end in b and how it is quoted: a quote character for a standard string,
// E for an escape string (backslashes escape) or a dollar sign (dollar
// quoted). A value ends at its closing quote, or at a NUL byte (the end of
// a message's SQL text) or the end of b when it has none. The keyword is found in any case, outside
// identifiers; comments and white space may separate it from the value.
func PasswordLiterals(b []byte) [][3]int {
	var out [][3]int
	lower, upper := -1, -1 // the next 'p' and 'P' at or after i (SIMD search)
	for i := 0; i+8 <= len(b); i++ {
		if lower < i && lower != len(b) {
			lower = nextByte(b, i, 'p')
		}
		if upper < i && upper != len(b) {
			upper = nextByte(b, i, 'P')
		}
		if i = min(lower, upper); i+8 > len(b) {
			break
		}
		if !keyword(b[i:i+8]) || (i > 0 && identByte(b[i-1])) || (i+8 < len(b) && identByte(b[i+8])) {
			continue
		}
		if sp, ok := literalAt(b, skipBlank(b, i+8)); ok {
			out = append(out, sp)
			i = sp[1] - 1
		}
	}
	return out
}

// nextByte is the index of the first c in b at or after i, len(b) if none.
func nextByte(b []byte, i int, c byte) int {
	if j := bytes.IndexByte(b[i:], c); j >= 0 {
		return i + j
	}
	return len(b)
}

func keyword(b []byte) bool {
	const kw = "password"
	for i := range kw {
		if b[i]|0x20 != kw[i] {
			return false
		}
	}
	return true
}

// identByte reports a byte that may continue an identifier (UTF-8 letters
// included).
func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// skipBlank skips white space and comments from i.
func skipBlank(b []byte, i int) int {
	for i < len(b) {
		switch {
		case b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r' || b[i] == '\f' || b[i] == '\v':
			i++
		case b[i] == '-' && i+1 < len(b) && b[i+1] == '-':
			for i < len(b) && b[i] != '\n' && b[i] != 0 {
				i++
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			depth := 0 // PostgreSQL's block comments nest
			for i < len(b) && b[i] != 0 {
				if b[i] == '/' && i+1 < len(b) && b[i+1] == '*' {
					depth, i = depth+1, i+2
					continue
				}
				if b[i] == '*' && i+1 < len(b) && b[i+1] == '/' {
					depth, i = depth-1, i+2
					if depth == 0 {
						break
					}
					continue
				}
				i++
			}
		default:
			return i
		}
	}
	return i
}

// literalAt reads the string constant that starts at i, if one does.
func literalAt(b []byte, i int) ([3]int, bool) {
	if i >= len(b) {
		return [3]int{}, false
	}
	switch c := b[i]; {
	case c == '\'':
		return [3]int{i + 1, quotedEnd(b, i+1, false), '\''}, true
	case (c == 'E' || c == 'e') && i+1 < len(b) && b[i+1] == '\'':
		return [3]int{i + 2, quotedEnd(b, i+2, true), 'E'}, true
	case (c == 'U' || c == 'u') && i+2 < len(b) && b[i+1] == '&' && b[i+2] == '\'':
		return [3]int{i + 3, quotedEnd(b, i+3, false), '\''}, true
	case c == '$':
		j := i + 1
		for j < len(b) && b[j] != '$' && identByte(b[j]) {
			j++
		}
		if j >= len(b) || b[j] != '$' {
			return [3]int{}, false
		}
		tag := b[i : j+1]
		start := j + 1
		for k := start; k < len(b); k++ {
			if b[k] == 0 {
				return [3]int{start, k, '$'}, true
			}
			if b[k] == '$' && k+len(tag) <= len(b) && string(b[k:k+len(tag)]) == string(tag) {
				return [3]int{start, k, '$'}, true
			}
		}
		return [3]int{start, len(b), '$'}, true
	}
	return [3]int{}, false
}

// quotedEnd is where a quoted value that starts at i ends: its closing
// quote (a doubled quote is part of it), a NUL byte or the end of b.
func quotedEnd(b []byte, i int, backslash bool) int {
	for i < len(b) {
		switch b[i] {
		case 0:
			return i
		case '\\':
			if backslash {
				i += 2
				continue
			}
		case '\'':
			if i+1 < len(b) && b[i+1] == '\'' {
				i += 2
				continue
			}
			return i
		}
		i++
	}
	return len(b)
}
