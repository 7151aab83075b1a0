package artifact

import (
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
func CutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	note := fmt.Sprintf(" [cut: %d bytes, over the limit of %s; the first %%d are kept]", len(s), sizeName(max))
	keep := max - len(note) - 8 // the kept count takes at most 8 digits more than %d
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + fmt.Sprintf(note, keep)
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
