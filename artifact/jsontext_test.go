package artifact_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pginterleave/interleave/artifact"
)

// TestEscapeJSONText: C1 controls, bidirectional overrides and isolates
// and other format characters leave as \uXXXX escapes and decode back to
// the same string; other text is untouched.
func TestEscapeJSONText(t *testing.T) {
	s := "a\u009b31m \u202eevil\u202c \u2066x\u2069 \u200b\ufeff \u00ad \U000e0041 é 日本 \u2028 ok"
	raw, _ := json.Marshal(map[string]string{"sql": s})
	out := artifact.EscapeJSONText(raw)
	for _, r := range string(out) {
		if r >= utf8.RuneSelf && r != 'é' && r != '日' && r != '本' {
			t.Fatalf("raw %U left in %s", r, out)
		}
	}
	for _, want := range []string{`\u009b`, `\u202e`, `\u2066`, `\u2069`, `\u200b`, `\ufeff`, `\u00ad`, `\udb40\udc41`, `\u2028`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s not in %s", want, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["sql"] != s {
		t.Fatalf("decodes to %q (%v), want %q", back["sql"], err, s)
	}
	if plain := []byte(`{"a":"é"}`); string(artifact.EscapeJSONText(plain)) != string(plain) {
		t.Fatal("changed text with nothing to escape")
	}
}
