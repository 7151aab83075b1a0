package netproxy

import (
	"bytes"
	"testing"
)

// FuzzFramer feeds arbitrary client bytes to the framer and the assembler:
// they must never panic, never hand out bounds outside the buffer, and keep
// the buffer within twice what was received (plus the initial size).
func FuzzFramer(f *testing.F) {
	f.Add(bytes.Join([][]byte{msg('Q', "select 1\x00")}, nil))
	f.Add(bytes.Join([][]byte{msg('P', "s1\x00select $1\x00\x00\x00"), msg('B', "\x00s1\x00\x00\x00\x00\x01\x00\x00\x00\x011\x00\x00"), msg('E', "\x00\x00\x00\x00\x00"), msg('S', "")}, nil))
	f.Add([]byte{'Q', 0x7f, 0xff, 0xff, 0xff})
	f.Add([]byte{'H', 0, 0, 0, 4, 'X', 0, 0, 0, 4})
	f.Add(bytes.Join([][]byte{msg('Q', "copy t from stdin\x00"), msg('d', "1\n"), msg('c', "")}, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := newFramer(bytes.NewReader(data), 1<<16)
		for _, profile := range []Profile{ProfileSyncCycle, ProfileFlushStages} {
			fr = newFramer(bytes.NewReader(data), 1<<16)
			// Captured connections begin with start-up packets (whose
			// length's first byte is 0); typed messages begin with a letter.
			for len(data) > 0 && data[0] == 0 {
				s, _, err := fr.startup()
				if err != nil {
					return
				}
				code := uint32(fr.buf[s+4])<<24 | uint32(fr.buf[s+5])<<16 | uint32(fr.buf[s+6])<<8 | uint32(fr.buf[s+7])
				fr.discard()
				if code != codeSSLRequest && code != codeGSSENCRequest {
					break
				}
			}
			a := assembler{profile: profile}
			for {
				typ, s, e, err := fr.next()
				if err != nil {
					break
				}
				if s < fr.start || e > fr.end || s >= e {
					t.Fatalf("bounds [%d,%d) outside [%d,%d)", s, e, fr.start, fr.end)
				}
				if typ == 'p' { // authentication, before any unit
					fr.discard()
					continue
				}
				st, _, err := a.feed(typ)
				if err != nil {
					break
				}
				if st != stepAccumulate {
					fr.discard()
					a.reset()
				}
			}
			if len(fr.buf) > 2*len(data)+2*initialBuffer {
				t.Fatalf("buffer of %d bytes for %d bytes of input", len(fr.buf), len(data))
			}
		}
	})
}

// FuzzBackendScanner feeds arbitrary server bytes in arbitrary chunks.
func FuzzBackendScanner(f *testing.F) {
	f.Add(bytes.Join([][]byte{msg('C', "SELECT 1\x00"), msg('Z', "I")}, nil), uint8(3))
	f.Add(bytes.Join([][]byte{msg('E', "SERROR\x00C40P01\x00Mdeadlock detected\x00\x00"), msg('Z', "E")}, nil), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		var s backendScanner
		n := int(chunk) + 1
		readies := 0
		for len(data) > 0 {
			k := n
			if k > len(data) {
				k = len(data)
			}
			s.scan(data[:k])
			for _, ev := range s.events {
				if ev == evReady {
					readies++
					r := s.finishResult()
					if len(r.SQLState) > 5 || len(s.body) > maxKeptBody {
						t.Fatalf("kept too much: sqlstate %d bytes, body %d", len(r.SQLState), len(s.body))
					}
					s.resetResult()
				}
			}
			data = data[k:]
		}
	})
}
