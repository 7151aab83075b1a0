package termtext

import "testing"

func TestUntrustedTextCannotDriveTheTerminal(t *testing.T) {
	for _, c := range []struct{ in, line, lines string }{
		{"plain text\twith a tab", "plain text\twith a tab", "plain text\twith a tab"},
		{"\x1b[31mred\x1b[0m", "?[31mred?[0m", "?[31mred?[0m"},
		{"title\x1b]0;pwned\x07", "title?]0;pwned?", "title?]0;pwned?"},
		{"two\nlines\r\n", "two?lines??", "two\nlines?\n"},
		{"c1 \u009b31m csi", "c1 ?31m csi", "c1 ?31m csi"},
		{"bad \xff\xfe utf-8", "bad ?? utf-8", "bad ?? utf-8"},
		{"bidi \u202egnirts", "bidi ?gnirts", "bidi ?gnirts"},
		{"ünïcødé ✓", "ünïcødé ✓", "ünïcødé ✓"},
	} {
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := Lines(c.in); got != c.lines {
			t.Errorf("Lines(%q) = %q, want %q", c.in, got, c.lines)
		}
	}
}
