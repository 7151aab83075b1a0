package explain

import (
	"strconv"
	"strings"
)

// Keys reads what a single-relation statement names of its rows: the
// column = value pairs ANDed in its WHERE clause (for SELECT, UPDATE,
// DELETE) or the columns and values of a one-row INSERT. Bind parameters
// $n take their values from params (nil: unknown, and the pair is left
// out). It returns nil when the statement names no row it can read
// (a predicate, OR, a subquery, several rows): the statement then depends
// on every access to the relation, which is the safe reading.
func Keys(sql string, params []string) map[string]string {
	ts := tokens(sql)
	if len(ts) == 0 {
		return nil
	}
	switch strings.ToLower(ts[0]) {
	case "insert":
		return insertKeys(ts, params)
	case "select", "update", "delete":
	default:
		return nil
	}
	depth, where := 0, -1
	for i, t := range ts {
		switch t {
		case "(":
			depth++
		case ")":
			depth--
		}
		if depth == 0 && strings.EqualFold(t, "where") {
			where = i
			break
		}
		if depth > 0 && strings.EqualFold(t, "select") {
			return nil // a subquery: its rows are not read here
		}
	}
	if where < 0 {
		return nil
	}
	keys := map[string]string{}
	rest := ts[where+1:]
	for i := 0; i < len(rest); i++ {
		t := strings.ToLower(rest[i])
		switch t {
		case "or", "(", "select", "in", "any", "not", "like", "between":
			return nil
		case "returning", "order", "group", "limit", "for", "offset", ";":
			i = len(rest)
			continue
		}
		if i+2 < len(rest) && rest[i+1] == "=" {
			col, val := rest[i], rest[i+2]
			if v, ok := value(val, params); ok && isIdent(col) {
				keys[column(col)] = v
				i += 2
				continue
			}
			if v, ok := value(col, params); ok && isIdent(val) {
				keys[column(val)] = v
				i += 2
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return keys
}

// insertKeys reads INSERT INTO t (a, b) VALUES (x, y) with one row.
func insertKeys(ts []string, params []string) map[string]string {
	open := -1
	for i, t := range ts {
		if t == "(" {
			open = i
			break
		}
		if strings.EqualFold(t, "values") || strings.EqualFold(t, "select") {
			return nil
		}
	}
	if open < 0 {
		return nil
	}
	var cols []string
	i := open + 1
	for ; i < len(ts) && ts[i] != ")"; i++ {
		if ts[i] != "," {
			cols = append(cols, column(ts[i]))
		}
	}
	if i+2 >= len(ts) || !strings.EqualFold(ts[i+1], "values") || ts[i+2] != "(" {
		return nil
	}
	var vals []string
	j := i + 3
	for ; j < len(ts) && ts[j] != ")"; j++ {
		if ts[j] == "," {
			continue
		}
		v, ok := value(ts[j], params)
		if !ok {
			v = "" // an expression: that column is not known
		}
		vals = append(vals, v)
	}
	if len(vals) != len(cols) || (j+1 < len(ts) && ts[j+1] == ",") {
		return nil // an expression spread over tokens, or several rows
	}
	keys := map[string]string{}
	for k, c := range cols {
		if vals[k] != "" {
			keys[c] = vals[k]
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return keys
}

// value is a literal or a bound parameter as text.
func value(t string, params []string) (string, bool) {
	switch {
	case strings.HasPrefix(t, "'"):
		return strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(t, "'"), "'"), "''", "'"), true
	case strings.HasPrefix(t, "$"):
		n, err := strconv.Atoi(t[1:])
		if err != nil || n < 1 || n > len(params) || params[n-1] == "\x00" {
			return "", false
		}
		return params[n-1], true
	case t != "" && (t[0] >= '0' && t[0] <= '9' || t[0] == '-' && len(t) > 1):
		if _, err := strconv.ParseFloat(t, 64); err == nil {
			return t, true
		}
	}
	return "", false
}

func isIdent(t string) bool {
	if t == "" {
		return false
	}
	c := t[0]
	return c == '"' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// column is a column name without its table and quotes, folded as
// PostgreSQL folds unquoted names.
func column(t string) string {
	if i := strings.LastIndexByte(t, '.'); i >= 0 && !strings.HasSuffix(t, `"`) {
		t = t[i+1:]
	}
	if strings.HasPrefix(t, `"`) {
		return strings.Trim(t, `"`)
	}
	return strings.ToLower(t)
}

// tokens splits SQL into identifiers (dotted names kept whole), numbers,
// quoted strings, $n parameters and one-character punctuation; comments and
// casts (::type) are dropped.
func tokens(sql string) []string {
	var out []string
	s := sql
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return out
			}
			i += end + 4
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			i += 2
			for i < len(s) && (isWord(s[i]) || s[i] == '.') {
				i++ // the type name of a cast
			}
		case c == '\'':
			j := i + 1
			for j < len(s) {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			if j >= len(s) {
				return out
			}
			out = append(out, s[i:j+1])
			i = j + 1
		case c == '"' || isWord(c) || c == '$':
			j := i
			for j < len(s) && (isWord(s[j]) || s[j] == '.' || s[j] == '$' || s[j] == '"') {
				if s[j] == '"' {
					k := strings.IndexByte(s[j+1:], '"')
					if k < 0 {
						return out
					}
					j += k + 2
					continue
				}
				j++
			}
			out = append(out, s[i:j])
			i = j
		case c == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' && (len(out) == 0 || !operand(out[len(out)-1])):
			j := i + 1
			for j < len(s) && (isWord(s[j]) || s[j] == '.') {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			out = append(out, string(c))
			i++
		}
	}
	return out
}

// operand: a token after which '-' is a minus, not a sign.
func operand(t string) bool {
	return t == ")" || isWord(t[0]) || t[0] == '\'' || t[0] == '"' || t[0] == '$'
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// Overlap reports whether two accesses to the same relation may touch the
// same row: unless both name a value for a common column and the values
// differ.
func Overlap(a, b Access) bool {
	if a.Relation != b.Relation {
		return false
	}
	for c, v := range a.Key {
		if w, ok := b.Key[c]; ok && w != v {
			return false
		}
	}
	return true
}

// keyText renders the narrower of two keys ("id=1"), "" for none.
func keyText(a, b Access) string {
	k := a.Key
	if len(b.Key) > len(k) {
		k = b.Key
	}
	if len(k) == 0 {
		return ""
	}
	var parts []string
	for c, v := range k {
		parts = append(parts, c+"="+v)
	}
	sortStrings(parts)
	return strings.Join(parts, ",")
}

// Target is the relation a DML statement names as the one it writes
// (UPDATE t, INSERT INTO t, DELETE FROM t, MERGE INTO t), unqualified and
// folded as PostgreSQL folds names; "" for any other statement.
func Target(sql string) string {
	ts := tokens(sql)
	if len(ts) < 2 {
		return ""
	}
	i := 1
	switch strings.ToLower(ts[0]) {
	case "update":
	case "insert", "delete", "merge":
		i = 2 // after INTO or FROM
	default:
		return ""
	}
	if i < len(ts) && strings.EqualFold(ts[i], "only") {
		i++
	}
	if i >= len(ts) {
		return ""
	}
	return column(ts[i])
}
