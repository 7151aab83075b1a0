package netproxy

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func msg(typ byte, body string) []byte {
	b := []byte{typ, 0, 0, 0, 0}
	putUint32(b[1:], uint32(4+len(body)))
	return append(b, body...)
}

func TestFramerSplitsAcrossReads(t *testing.T) {
	big := strings.Repeat("x", 100_000)
	stream := bytes.Join([][]byte{msg('P', "\x00select 1\x00\x00\x00"), msg('B', big), msg('S', "")}, nil)
	for name, r := range map[string]io.Reader{
		"whole":    bytes.NewReader(stream),
		"one byte": iotest.OneByteReader(bytes.NewReader(stream)),
		"half":     iotest.HalfReader(bytes.NewReader(stream)),
	} {
		f := newFramer(r, 0)
		var types []byte
		for {
			typ, s, e, err := f.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			types = append(types, typ)
			if typ == 'B' && string(f.buf[s+5:e]) != big {
				t.Fatalf("%s: Bind body corrupted", name)
			}
		}
		if string(types) != "PBS" {
			t.Fatalf("%s: types %q", name, types)
		}
		if got := f.unit(); !bytes.Equal(got, stream) {
			t.Fatalf("%s: the unit is not the original bytes (%d vs %d)", name, len(got), len(stream))
		}
	}
}

func TestFramerRejectsBadLengths(t *testing.T) {
	for name, tc := range map[string]struct {
		in   []byte
		max  int
		want string
	}{
		"length below 4": {[]byte{'Q', 0, 0, 0, 3}, 0, "invalid length"},
		"over the limit": {[]byte{'Q', 0x10, 0, 0, 0}, 1 << 20, "exceeds the proxy's limit"},
		"truncated":      {append([]byte{'Q', 0, 0, 0, 10}, 'a'), 0, "unexpected EOF"},
	} {
		f := newFramer(bytes.NewReader(tc.in), tc.max)
		_, _, _, err := f.next()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
	var tooLarge *ErrMessageTooLarge
	f := newFramer(bytes.NewReader([]byte{'Q', 0x7f, 0, 0, 0}), 0)
	if _, _, _, err := f.next(); !errors.As(err, &tooLarge) {
		t.Fatalf("2 GiB length: %v", err)
	}
}

// A hostile length header must not make the proxy allocate what it announces.
func TestFramerGrowsOnlyWithReceivedBytes(t *testing.T) {
	in := append([]byte{'Q', 0x0f, 0xff, 0xff, 0xff}, make([]byte, 1000)...)
	f := newFramer(bytes.NewReader(in), 1<<30)
	_, _, _, err := f.next()
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("err %v", err)
	}
	if len(f.buf) > 4*initialBuffer {
		t.Fatalf("buffer grew to %d bytes after receiving 1005", len(f.buf))
	}
}

func TestAssemblerUnits(t *testing.T) {
	for _, tc := range []struct {
		profile Profile
		in      string
		want    string // one letter per message: a accumulate, r release, p pass, t terminate, ! error
	}{
		{ProfileSyncCycle, "Q", "r"},
		{ProfileSyncCycle, "PBDES", "aaaar"},
		{ProfileSyncCycle, "PDSBES", "aarAar"},
		{ProfileSyncCycle, "dcf", "ppp"},
		{ProfileSyncCycle, "PH", "a!"},
		{ProfileFlushStages, "PDHBES", "aarAar"},
		{ProfileSyncCycle, "F", "r"},
		{ProfileSyncCycle, "PF", "a!"},
		{ProfileSyncCycle, "Pd", "a!"},
		{ProfileSyncCycle, "X", "t"},
		{ProfileSyncCycle, "p", "!"},
		{ProfileSyncCycle, "z", "!"},
	} {
		a := assembler{profile: tc.profile}
		var got strings.Builder
		for _, typ := range []byte(tc.in) {
			st, _, err := a.feed(typ)
			switch {
			case err != nil:
				got.WriteByte('!')
			case st == stepAccumulate:
				got.WriteByte('a')
			case st == stepRelease:
				got.WriteByte('r')
				a.reset()
			case st == stepPassThrough:
				got.WriteByte('p')
			case st == stepTerminate:
				got.WriteByte('t')
			}
			if err != nil {
				break
			}
		}
		want := strings.ReplaceAll(tc.want, "A", "a")
		if got.String() != want {
			t.Errorf("%s %q: got %q, want %q", tc.profile, tc.in, got.String(), want)
		}
	}
	if _, _, err := (&assembler{}).feed('H'); !errors.Is(err, ErrFlushNeedsProfile) || !strings.Contains(err.Error(), "flush-stages") {
		t.Fatalf("Flush under sync-cycle: %v; the error must name the profile to use", err)
	}
}
