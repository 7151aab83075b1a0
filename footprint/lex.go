package footprint

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one lexical token of SQL text.
type token struct {
	kind  tokKind
	text  string // keywords and identifiers lower-cased unless quoted
	depth int    // parenthesis depth at the token
}

type tokKind uint8

const (
	tokWord   tokKind = iota // keyword or unquoted identifier (lower case)
	tokQuoted                // "quoted identifier"
	tokString                // any string constant ('...', E'...', $$...$$)
	tokNumber
	tokParam // $1
	tokPunct // ( ) , ; . [ ] and operators
)

// lex splits SQL text into statements of tokens, following PostgreSQL's
// lexical rules for what matters here: comments (-- and nested /* */),
// string constants (standard, E'...' with backslash escapes, dollar quoting),
// quoted identifiers, and semicolons outside all of them. ok is false when
// the text does not lex (an unterminated string or comment): the caller
// then knows nothing about it.
func lex(sql string) (stmts [][]token, ok bool) {
	var cur []token
	depth := 0
	flush := func() {
		if len(cur) > 0 {
			stmts = append(stmts, cur)
		}
		cur, depth = nil, 0
	}
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			n, j := 1, i+2
			for j < len(sql) && n > 0 {
				switch {
				case strings.HasPrefix(sql[j:], "/*"):
					n, j = n+1, j+2
				case strings.HasPrefix(sql[j:], "*/"):
					n, j = n-1, j+2
				default:
					j++
				}
			}
			if n > 0 {
				return nil, false
			}
			i = j
		case c == ';':
			flush()
			i++
		case c == '\'':
			j, good := endQuote(sql, i+1, '\'', false)
			if !good {
				return nil, false
			}
			cur = append(cur, token{tokString, sql[i:j], depth})
			i = j
		case (c == 'E' || c == 'e') && i+1 < len(sql) && sql[i+1] == '\'':
			j, good := endQuote(sql, i+2, '\'', true)
			if !good {
				return nil, false
			}
			cur = append(cur, token{tokString, sql[i:j], depth})
			i = j
		case (c == 'U' || c == 'u') && i+2 < len(sql) && sql[i+1] == '&' && (sql[i+2] == '"' || sql[i+2] == '\''):
			// U&"..." and U&'...' (Unicode escapes, perhaps with UESCAPE):
			// not decoded. The identifier's text is one no name equals
			// (unicodeIdent), so whatever compares names knows nothing.
			q := sql[i+2]
			j, good := endQuote(sql, i+3, q, false)
			if !good {
				return nil, false
			}
			if q == '\'' {
				cur = append(cur, token{tokString, sql[i:j], depth})
			} else {
				cur = append(cur, token{tokQuoted, unicodeIdent + sql[i:j], depth})
			}
			i = j
		case c == '"':
			j, good := endQuote(sql, i+1, '"', false)
			if !good {
				return nil, false
			}
			cur = append(cur, token{tokQuoted, truncIdent(strings.ReplaceAll(sql[i+1:j-1], `""`, `"`)), depth})
			i = j
		case c == '$':
			if j := dollarTagEnd(sql, i); j > 0 {
				tag := sql[i:j]
				end := strings.Index(sql[j:], tag)
				if end < 0 {
					return nil, false
				}
				cur = append(cur, token{tokString, sql[i : j+end+len(tag)], depth})
				i = j + end + len(tag)
				continue
			}
			j := i + 1
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			if j > i+1 {
				cur = append(cur, token{tokParam, sql[i:j], depth})
			} else {
				cur = append(cur, token{tokPunct, "$", depth})
			}
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(sql) && (isIdentChar(rune(sql[j])) || sql[j] == '.') {
				j++
			}
			cur = append(cur, token{tokNumber, sql[i:j], depth})
			i = j
		case c == '(' || c == '[':
			cur = append(cur, token{tokPunct, string(c), depth})
			depth++
			i++
		case c == ')' || c == ']':
			if depth > 0 {
				depth--
			}
			cur = append(cur, token{tokPunct, string(c), depth})
			i++
		default:
			r, size := utf8.DecodeRuneInString(sql[i:])
			if isIdentStart(r) {
				j := i + size
				for j < len(sql) {
					r2, s2 := utf8.DecodeRuneInString(sql[j:])
					if !isIdentChar(r2) {
						break
					}
					j += s2
				}
				cur = append(cur, token{tokWord, truncIdent(asciiLower(sql[i:j])), depth})
				i = j
				continue
			}
			// Operators: a run of operator characters is one token, as
			// PostgreSQL's scanner cuts it: it ends where a comment
			// begins ("+--" is "+" and a comment: case
			// ri-key-set-after-operator-comment), and a trailing + or -
			// is its own token unless the run holds one of ~!@#^&|`?%.
			j := i + size
			if strings.ContainsRune(opChars, r) {
				for j < len(sql) && strings.ContainsRune(opChars, rune(sql[j])) {
					j++
				}
				op := sql[i:j]
				for _, c := range []string{"--", "/*"} {
					if k := strings.Index(op, c); k > 0 {
						op = op[:k]
					}
				}
				if len(op) > 1 && !strings.ContainsAny(op, "~!@#^&|`?%") {
					for len(op) > 1 && (op[len(op)-1] == '+' || op[len(op)-1] == '-') {
						op = op[:len(op)-1]
					}
				}
				j = i + len(op)
			}
			cur = append(cur, token{tokPunct, sql[i:j], depth})
			i = j
		}
	}
	flush()
	return stmts, true
}

// opChars are the characters operators are made of.
const opChars = "+-*/<>=~!@#%^&|`?"

// truncIdent cuts an identifier to 63 bytes at a character boundary, as
// PostgreSQL does (NAMEDATALEN - 1): a longer name names the same column
// (case ri-key-name-truncated).
func truncIdent(s string) string {
	if len(s) <= 63 {
		return s
	}
	n := 63
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// endQuote finds the end of a quoted token that started before from: a
// doubled quote is an escaped quote; with backslash, \ escapes the next
// byte (E” strings).
func endQuote(s string, from int, q byte, backslash bool) (int, bool) {
	for i := from; i < len(s); i++ {
		switch {
		case backslash && s[i] == '\\':
			i++
		case s[i] == q:
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			return i + 1, true
		}
	}
	return 0, false
}

// dollarTagEnd returns the end of a dollar-quote opening tag at i ($$ or
// $tag$), or 0 when there is none (a parameter like $1 is not a tag).
func dollarTagEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && s[j] == '$' {
		return j + 1
	}
	if j >= len(s) || !(isIdentStart(rune(s[j])) && s[j] != '$') {
		return 0
	}
	for j < len(s) && isIdentChar(rune(s[j])) && s[j] != '$' {
		j++
	}
	if j < len(s) && s[j] == '$' {
		return j + 1
	}
	return 0
}

// unicodeIdent starts the text of a U&"..." identifier, which lex does
// not decode: no catalog name starts with a NUL byte.
const unicodeIdent = "\x00U&"

// asciiLower folds an unquoted identifier as PostgreSQL does in UTF-8:
// A to Z only (downcase_identifier), so that "ИД" stays as it is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) || r >= 0x80 }
func isIdentChar(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) || r >= 0x80
}

// words returns the statement's first n words (keywords), lower case.
func words(ts []token, n int) []string {
	var out []string
	for _, t := range ts {
		if len(out) == n {
			break
		}
		if t.kind != tokWord {
			break
		}
		out = append(out, t.text)
	}
	return out
}

// hasSeq reports whether the words seq appear consecutively anywhere.
func hasSeq(ts []token, seq ...string) bool {
	for i := 0; i+len(seq) <= len(ts); i++ {
		match := true
		for j, w := range seq {
			if ts[i+j].kind != tokWord || ts[i+j].text != w {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
