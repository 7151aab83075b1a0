package artifact_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/pginterleave/interleave/artifact"
)

// TestCutDepth: values within the depth come back byte for byte; deeper
// containers become "…", whatever the depth, and the result is JSON of
// the same shape above the cut.
func TestCutDepth(t *testing.T) {
	for _, s := range []string{`1`, `"[[["`, `{"a":[1,{"b":"]}"}]}`, `[[[]]]`} {
		if out, cut := artifact.CutDepth([]byte(s), 3); cut || string(out) != s {
			t.Errorf("CutDepth(%s, 3) = %s, %v; want it unchanged", s, out, cut)
		}
	}
	cases := map[string]string{
		`[[[[1]]]]`:                         `[[["…"]]]`,
		`{"a":{"b":{"c":{"d":1}},"e":[2]}}`: `{"a":{"b":{"c":"…"},"e":[2]}}`,
		`[1,[2,[3,[4,[5]]],"x\"]"],{}]`:     `[1,[2,[3,"…"],"x\"]"],{}]`,
	}
	for in, want := range cases {
		out, cut := artifact.CutDepth([]byte(in), 3)
		if !cut || string(out) != want {
			t.Errorf("CutDepth(%s, 3) = %s, %v; want %s", in, out, cut, want)
		}
	}
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	out, cut := artifact.CutDepth([]byte(deep), artifact.MaxValueDepth)
	if !cut || artifact.ValueDepth(out) != artifact.MaxValueDepth || !json.Valid(out) {
		t.Fatalf("100,000 deep: cut %v to depth %d (valid %v)", cut, artifact.ValueDepth(out), json.Valid(out))
	}
}

// FuzzValueJSON: CutDepth never panics and, on JSON, returns JSON within
// the depth (the input itself when it was within); EscapeJSONText of any
// string's JSON decodes to the same string and leaves no C1 control or
// format character raw.
func FuzzValueJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"]}"}],"c":null}`), 2)
	f.Add([]byte(strings.Repeat("[", 200)+strings.Repeat("]", 200)), 64)
	f.Add([]byte("\"\u009b\u202e\U000e0041\""), 0)
	f.Fuzz(func(t *testing.T, raw []byte, max int) {
		max = max%100 + 1
		if max < 1 {
			max += 100
		}
		out, cut := artifact.CutDepth(raw, max)
		if !cut && string(out) != string(raw) {
			t.Fatalf("not cut, but changed: %q -> %q", raw, out)
		}
		if json.Valid(raw) {
			if !json.Valid(out) || artifact.ValueDepth(out) > max {
				t.Fatalf("CutDepth(%q, %d) = %q: valid %v, depth %d", raw, max, out, json.Valid(out), artifact.ValueDepth(out))
			}
		}
		s := string(raw)
		enc, _ := json.Marshal(s)
		esc := artifact.EscapeJSONText(enc)
		var want, back string
		_ = json.Unmarshal(enc, &want) // s with invalid UTF-8 replaced
		if err := json.Unmarshal(esc, &back); err != nil || back != want {
			t.Fatalf("EscapeJSONText(%q) = %q decodes to %q (%v)", enc, esc, back, err)
		}
		for _, r := range string(esc) {
			if r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Cf, r) {
				t.Fatalf("EscapeJSONText left %U raw in %q", r, esc)
			}
		}
	})
}

// TestRecordedValuesAreShallow: an actor's value is recorded to depth
// MaxValueDepth, so that an actor returning a small, deeply nested value
// does not make its artifact too large to write (a 20 KB value nested
// 9,990 deep made 200 MB of indented JSON, over MaxFileSize).
func TestRecordedValuesAreShallow(t *testing.T) {
	deep := strings.Repeat("[", 9990) + strings.Repeat("]", 9990)
	v := artifact.CutValue([]byte(deep))
	if artifact.ValueDepth(v) != artifact.MaxValueDepth || !strings.Contains(string(v), "…") {
		t.Fatalf("CutValue kept depth %d", artifact.ValueDepth(v))
	}
	a := &artifact.Artifact{
		SchemaVersion: artifact.SchemaVersion,
		Scenario:      artifact.Scenario{Name: "deep", Actors: []string{"a"}},
		Outcome:       artifact.Outcome{Kind: "pass"},
		Actors:        []artifact.ActorResult{{Actor: "a", Value: v}},
	}
	if err := artifact.Write(t.TempDir()+"/a.json", a, false); err != nil {
		t.Fatal(err)
	}
	if shallow := `{"a":[1,2]}`; string(artifact.CutValue([]byte(shallow))) != shallow {
		t.Fatal("a shallow value changed")
	}
}
