// Package redact removes secrets (the server's password Interleave hands
// to the programs it runs, as PGPASSWORD and escaped inside DATABASE_URL;
// secrets a user configures; the values of PASSWORD literals in SQL) from
// text, JSON and wire bytes before they are stored in an artifact or shown.
package redact

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
)

// Mark replaces every form of a secret.
const Mark = "REDACTED"

// Secrets are the forms of the values to remove. The zero value removes
// nothing.
type Secrets struct {
	forms []string // longest first, so that an escaped form goes whole
}

// Password is the secrets of one password: itself, the escaped forms it
// takes in a connection URL (user information, query, path) and in an SQL
// string constant (a quote doubled).
func Password(p string) Secrets {
	if p == "" {
		return Secrets{}
	}
	userinfo := url.UserPassword("u", p).String()[len("u:"):]
	seen := map[string]bool{}
	var s Secrets
	for _, f := range []string{p, userinfo, url.QueryEscape(p), url.PathEscape(p), strings.ReplaceAll(p, "'", "''")} {
		if !seen[f] {
			seen[f] = true
			s.forms = append(s.forms, f)
		}
	}
	sortLongestFirst(s.forms)
	return s
}

func sortLongestFirst(forms []string) {
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
}

// Empty reports whether there is nothing to remove.
func (s Secrets) Empty() bool { return len(s.forms) == 0 }

// String is text with every form of the secrets replaced by Mark and the
// value of every PASSWORD literal it holds masked (MaskByte).
func (s Secrets) String(text string) string {
	text = maskLiteralText(text)
	for _, f := range s.forms {
		text = strings.ReplaceAll(text, f, Mark)
	}
	return text
}

// contained reports whether b holds a form of the secrets, as is or as
// JSON escapes it, or a PASSWORD literal.
func (s Secrets) contained(b []byte) bool {
	if len(PasswordLiterals(b)) > 0 {
		return true
	}
	for _, f := range s.forms {
		if bytes.Contains(b, []byte(f)) {
			return true
		}
		if q, _ := json.Marshal(f); bytes.Contains(b, q[1:len(q)-1]) {
			return true
		}
	}
	return false
}

// JSON is a JSON value with the secrets removed from its strings and keys;
// it stays valid JSON (numbers are kept as written). A value without a
// secret is returned as it is.
func (s Secrets) JSON(raw []byte) []byte {
	if !s.contained(raw) {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		out, _ := json.Marshal(s.String(string(raw)))
		return out
	}
	out, err := json.Marshal(s.value(v))
	if err != nil {
		out, _ = json.Marshal(s.String(string(raw)))
	}
	return out
}

func (s Secrets) value(v any) any {
	switch v := v.(type) {
	case string:
		return s.String(v)
	case []any:
		for i := range v {
			v[i] = s.value(v[i])
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[s.String(k)] = s.value(e)
		}
		return out
	}
	return v
}
