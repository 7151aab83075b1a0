package artifact

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The documented limits (docs/reliability.md, "Limits"). Recording keeps
// within them, cutting what is over and saying so; reading refuses a file
// over them.
const (
	// MaxFileSize bounds an artifact file.
	MaxFileSize = 64 << 20
	// MaxCaptureSize bounds the wire capture, uncompressed.
	MaxCaptureSize = 256 << 20
	// MaxActorValue bounds an actor's result as JSON (a command actor's
	// stdout).
	MaxActorValue = 1 << 20
	// MaxText bounds one message: an actor's error, the outcome's message.
	MaxText = 64 << 10
)

// CutText returns s if it is at most max bytes, otherwise its beginning
// (whole UTF-8 characters) followed by a note of how much was cut, max
// bytes in all.
func CutText(s string, max int) string { return CutTextOf(s, len(s), max) }

// CutTextOf is CutText for s, the beginning of a text of total bytes of
// which only s was kept (a program's output read up to a bound).
func CutTextOf(s string, total, max int) string {
	if total <= max && len(s) == total {
		return s
	}
	return cutTo(s, total, max, max)
}

// cutTo keeps the beginning of s and the note, budget bytes in all; the
// note names limit.
func cutTo(s string, total, limit, budget int) string {
	note := fmt.Sprintf(" [cut: %d bytes, over the limit of %s; the first %%d are kept]", total, sizeName(limit))
	keep := min(len(s), budget-len(note)-8) // the kept count takes at most 8 digits more than %d
	for keep > 0 && keep < len(s) && !utf8.RuneStart(s[keep]) {
		keep--
	}
	keep = max(keep, 0)
	return s[:keep] + fmt.Sprintf(note, keep)
}

// CutValue returns an actor's value as JSON if it is within MaxActorValue;
// otherwise a JSON string that holds the beginning of its JSON text and a
// note of how much was cut, within MaxActorValue. Arrays and objects
// nested deeper than MaxValueDepth become "…": the artifact is written
// indented, two spaces a level a line, so a 20 KB value nested 10,000
// deep would make a 200 MB artifact, refused as over MaxFileSize.
func CutValue(raw []byte) []byte {
	raw, _ = CutDepth(raw, MaxValueDepth)
	if len(raw) <= MaxActorValue {
		return raw
	}
	out, _ := json.Marshal(CutOutput(string(raw), len(raw)))
	return out
}

// CutOutput is the text an actor produced, total bytes of which kept is
// the beginning, cut so that it fits MaxActorValue as a JSON string, with
// a note of how much was cut.
func CutOutput(kept string, total int) string {
	kept = strings.ToValidUTF8(kept, "")
	// JSON escapes a byte in up to six: halve what is kept until it fits.
	for budget := MaxActorValue - 2; ; budget /= 2 {
		s := cutTo(kept, total, MaxActorValue, budget)
		if out, _ := json.Marshal(s); len(out) <= MaxActorValue {
			return s
		}
	}
}

// IsCut reports whether CutText cut s.
func IsCut(s string) bool {
	return strings.HasSuffix(s, " are kept]") && strings.Contains(s, " [cut: ")
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
