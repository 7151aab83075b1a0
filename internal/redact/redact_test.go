package redact

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

func TestPasswordInEveryForm(t *testing.T) {
	const p = `p@ss:w/rd "q" ü%`
	s := Password(p)
	u := url.URL{Scheme: "postgres", User: url.UserPassword("me", p), Host: "127.0.0.1:5432", Path: "/db"}
	for _, text := range []string{p, u.String(), "password=" + url.QueryEscape(p), "/" + url.PathEscape(p)} {
		got := s.String("x " + text + " y")
		if strings.Contains(got, "w/rd") || strings.Contains(got, "w%2Frd") || !strings.Contains(got, Mark) {
			t.Errorf("%q became %q", text, got)
		}
	}
	raw, _ := json.Marshal(map[string]any{"url": u.String(), p: []any{1.5, p}, "n": json.Number("12345678901234567890")})
	got := s.JSON(raw)
	if !json.Valid(got) || strings.Contains(string(got), "w/rd") || strings.Contains(string(got), `w\/rd`) || !strings.Contains(string(got), "12345678901234567890") {
		t.Errorf("JSON %s became %s", raw, got)
	}
	if clean := []byte(`{"a": 1}`); string(s.JSON(clean)) != string(clean) {
		t.Error("JSON without a secret was rewritten")
	}
	if Password("").String("anything") != "anything" || !Password("").Empty() {
		t.Error("no password must remove nothing")
	}
}
