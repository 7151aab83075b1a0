package artifact_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pginterleave/interleave/artifact"
)

// counterJSON is a recorded artifact with a wire capture.
func counterJSON(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/counter-failure.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// withChange is data with one change made to its JSON.
func withChange(t *testing.T, data []byte, change func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	change(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryReaderChecksTheCapture: Decode (and so Read, which report,
// replay, minimize, export and trace use) refuses a capture whose hash,
// data or declared size is wrong, before anything uses the artifact.
func TestEveryReaderChecksTheCapture(t *testing.T) {
	base := counterJSON(t)
	if _, err := artifact.Decode(base); err != nil {
		t.Fatalf("the recorded artifact is refused: %v", err)
	}
	capture := func(m map[string]any) map[string]any { return m["capture"].(map[string]any) }
	garbage := base64.StdEncoding.EncodeToString([]byte("this is not zstd data at all, not even close"))
	for _, c := range []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"a wrong SHA-256", func(m map[string]any) { capture(m)["sha256"] = strings.Repeat("0", 64) }, "does not match its SHA-256"},
		{"corrupt zstd data", func(m map[string]any) { capture(m)["data"] = garbage }, "does not decode"},
		{"data that is not base64", func(m map[string]any) { capture(m)["data"] = "%%%%" }, "does not decode"},
		{"a declared size of 10^12", func(m map[string]any) { capture(m)["size"] = 1e12 }, "declares 1000000000000 bytes; the limit is 256 MiB"},
		{"a declared size one byte short", func(m map[string]any) { capture(m)["size"] = capture(m)["size"].(float64) - 1 }, "not the 3387 it declares"},
		{"an unknown encoding", func(m map[string]any) { capture(m)["encoding"] = "gzip" }, `encoding "gzip"`},
		{"an actor value over 1 MiB", func(m map[string]any) {
			m["actors"].([]any)[0].(map[string]any)["value"] = strings.Repeat("x", artifact.MaxActorValue)
		}, "over the limits"},
		{"a message over 64 KiB", func(m map[string]any) {
			m["outcome"].(map[string]any)["message"] = strings.Repeat("x", artifact.MaxText+1)
		}, "over the limit of 64 KiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := withChange(t, base, c.change)
			_, err := artifact.Decode(data)
			if !errors.Is(err, artifact.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Decode: %v; want ErrInvalid saying %q", err, c.want)
			}
			path := filepath.Join(t.TempDir(), "a.json")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := artifact.Read(path); !errors.Is(err, artifact.ErrInvalid) {
				t.Fatalf("Read: %v; want ErrInvalid", err)
			}
		})
	}
	over := append(append([]byte{}, base...), make([]byte, artifact.MaxFileSize)...)
	if _, err := artifact.Decode(over); !errors.Is(err, artifact.ErrInvalid) || !strings.Contains(err.Error(), "64 MiB") {
		t.Fatalf("an artifact over 64 MiB: %v", err)
	}
}

// TestCaptureRoundTrip: what EncodeCapture writes, Bytes gives back; a
// capture over the limit is not kept and says so.
func TestCaptureRoundTrip(t *testing.T) {
	raw := []byte(strings.Repeat("Q\x00\x00\x00\x0dselect 1\x00", 1000))
	c, cut, err := artifact.EncodeCapture(raw)
	if err != nil || cut != "" {
		t.Fatal(err, cut)
	}
	got, err := c.Bytes()
	if err != nil || string(got) != string(raw) {
		t.Fatalf("round trip: %v", err)
	}
	c, cut, err = artifact.EncodeCapture(make([]byte, artifact.MaxCaptureSize+1))
	if err != nil || c != nil || !strings.Contains(cut, "over the limit of 256 MiB and was not kept") {
		t.Fatalf("a capture over the limit: %v %v %q", c, err, cut)
	}
}

// TestWriteKeepsWithinTheLimit: an artifact whose capture would make it
// larger than readers accept is written without the capture, and says so.
func TestWriteKeepsWithinTheLimit(t *testing.T) {
	a, err := artifact.Decode(counterJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	noise := make([]byte, 50<<20) // does not compress: 67 MiB of base64
	if _, err := rand.Read(noise); err != nil {
		t.Fatal(err)
	}
	if a.Capture, _, err = artifact.EncodeCapture(noise); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.json")
	if err := artifact.Write(path, a, false); err != nil {
		t.Fatal(err)
	}
	back, err := artifact.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Capture != nil || len(back.Cut) != 1 || !strings.Contains(back.Cut[0], "the wire capture was not kept") {
		t.Fatalf("capture %v, cut %q", back.Capture != nil, back.Cut)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("the artifact has mode %v, want 0600", st.Mode().Perm())
	}
}

func TestCutText(t *testing.T) {
	for _, n := range []int{10, 100, 1000} {
		s := strings.Repeat("é", n) // two bytes each: a cut must not split one
		for _, max := range []int{200, 1000} {
			got := artifact.CutText(s, max)
			if len(s) <= max {
				if got != s {
					t.Errorf("CutText of %d bytes at %d changed it", len(s), max)
				}
				continue
			}
			if len(got) > max || !utf8.ValidString(got) || !artifact.IsCut(got) || !strings.Contains(got, "bytes, over the limit of") {
				t.Errorf("CutText of %d bytes at %d: %d bytes, %q", len(s), max, len(got), got)
			}
		}
	}
}
