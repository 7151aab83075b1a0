package artifact_test

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/report"
	"github.com/pginterleave/interleave/scenario"
)

// FuzzDecode feeds untrusted bytes to Decode: it never panics, a refusal is
// ErrInvalid, and what it accepts survives encoding and decoding again and
// can be rendered as a report and as a spec without a panic.
func FuzzDecode(f *testing.F) {
	seed, err := os.ReadFile("testdata/counter-failure.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	// The same with an explanation (a lost update), to mutate its fields.
	withExplanation := strings.Replace(string(seed), "\n}", `,"explanation":{"anomaly":{"name":"lost update","adya":"G-single","sentence":"s"},`+
		`"cycle":[{"from":"alice:1","to":"bob:1","kind":"rw","relation":"r","fromStep":2,"toStep":5,"commitStep":7},`+
		`{"from":"bob:1","to":"alice:1","kind":"ww","relation":"r","fromStep":5,"toStep":6}],`+
		`"criticalPair":{"first":2,"second":7,"firstActor":"alice","secondActor":"bob","firstSql":"","secondSql":"","found":true,"tried":[]},`+
		`"fix":{"class":"locking","advice":""}}}`, 1)
	if _, err := artifact.Decode([]byte(withExplanation)); err != nil {
		f.Fatalf("the seed with an explanation is refused: %v", err)
	}
	f.Add([]byte(withExplanation))
	f.Add([]byte(`{"schemaVersion":1}`))
	f.Add([]byte(`{"schemaVersion":1,"units":[{"actor":"a","conn":0,"unit":0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := artifact.Decode(data)
		if err != nil {
			if !errors.Is(err, artifact.ErrInvalid) {
				t.Fatalf("refusal %v is not ErrInvalid", err)
			}
			return
		}
		again, err := artifact.Encode(a)
		if err != nil {
			t.Fatalf("encode an accepted artifact: %v", err)
		}
		if _, err := artifact.Decode(again); err != nil {
			t.Fatalf("an accepted artifact, encoded again, is refused: %v", err)
		}
		if err := report.Render(io.Discard, a, report.Options{}); err != nil {
			t.Logf("report: %v", err) // an error is fine; a panic is not
		}
		scenario.SpecFromArtifact(a, "")
	})
}
