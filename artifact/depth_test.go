package artifact_test

import (
	"encoding/json"
	"strings"
	"testing"

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
