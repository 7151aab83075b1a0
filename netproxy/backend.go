package netproxy

import "encoding/binary"

// maxKeptBody bounds how much of one interesting server message the scanner
// copies (error text, command tags). The bytes themselves are always
// forwarded whole.
const maxKeptBody = 4096

// serverEvent is something the scanner saw that the connection acts on once
// the chunk holding it has been forwarded.
type serverEvent uint8

const (
	evReady     serverEvent = iota + 1 // ReadyForQuery
	evKeyData                          // BackendKeyData
	evCopyBoth                         // CopyBothResponse
	evStageDone                        // a Flush-terminated stage got all its responses
)

// backendScanner follows server messages across chunk boundaries without
// copying them, keeping only what the scheduler's record needs. All fields
// are reused from unit to unit.
type backendScanner struct {
	hdr    [5]byte
	hdrN   int
	typ    byte
	remain int    // body bytes still to come for the current message
	keep   bool   // copy the body of the current message into body
	body   []byte // kept body of the current message

	result   Result
	tags     []byte
	sqlstate [5]byte
	errMsg   []byte
	errDet   []byte

	pid    uint32
	key    []byte
	events []serverEvent

	// Flush stages (profile flush-stages): a released stage completes when
	// tokens responses have arrived, or at its first error, after which the
	// server ignores everything up to the next Sync (skipping).
	stage    bool
	tokens   int
	skipping bool
}

func (s *backendScanner) resetResult() {
	s.tags = s.tags[:0]
	s.errMsg = s.errMsg[:0]
	s.errDet = s.errDet[:0]
	s.result = Result{}
}

// scan consumes one chunk of server bytes.
func (s *backendScanner) scan(p []byte) {
	s.events = s.events[:0]
	for len(p) > 0 {
		if s.remain == 0 && s.hdrN < 5 {
			n := copy(s.hdr[s.hdrN:], p)
			s.hdrN += n
			p = p[n:]
			if s.hdrN < 5 {
				return
			}
			s.typ = s.hdr[0]
			s.remain = int(binary.BigEndian.Uint32(s.hdr[1:])) - 4
			if s.remain < 0 {
				s.remain = 0
			}
			s.keep = keepBody(s.typ)
			s.body = s.body[:0]
			if s.remain == 0 {
				s.finish()
				continue
			}
		}
		n := s.remain
		if n > len(p) {
			n = len(p)
		}
		if s.keep && len(s.body) < maxKeptBody {
			room := maxKeptBody - len(s.body)
			if room > n {
				room = n
			}
			s.body = append(s.body, p[:room]...)
		}
		p = p[n:]
		s.remain -= n
		if s.remain == 0 {
			s.finish()
		}
	}
}

func keepBody(t byte) bool {
	switch t {
	case 'Z', 'C', 'E', 'K':
		return true
	}
	return false
}

// finish handles a complete message.
func (s *backendScanner) finish() {
	s.hdrN = 0
	if s.stage {
		switch s.typ {
		case '1', '2', '3', 'T', 'n', 'C', 'I', 's':
			if s.tokens--; s.tokens == 0 {
				s.stage = false
				s.events = append(s.events, evStageDone)
			}
		case 'E':
			s.stage, s.skipping = false, true
			s.events = append(s.events, evStageDone)
		}
	}
	switch s.typ {
	case 'Z':
		if len(s.body) > 0 {
			s.result.TxStatus = s.body[0]
		}
		s.skipping = false
		s.events = append(s.events, evReady)
	case 'C':
		s.tags = append(s.tags, trimNUL(s.body)...)
		s.tags = append(s.tags, 0)
	case 'D':
		s.result.Rows++
	case 'E':
		if len(s.result.SQLState) == 0 {
			s.parseError(s.body)
		}
	case 'G', 'H':
		s.result.Copy = s.typ
	case 'W':
		s.events = append(s.events, evCopyBoth)
	case 'K':
		if len(s.body) >= 4 {
			s.pid = binary.BigEndian.Uint32(s.body)
			s.key = append(s.key[:0], s.body[4:]...)
			s.events = append(s.events, evKeyData)
		}
	}
}

func (s *backendScanner) parseError(b []byte) {
	for len(b) > 0 && b[0] != 0 {
		field := b[0]
		end := 1
		for end < len(b) && b[end] != 0 {
			end++
		}
		val := b[1:end]
		switch field {
		case 'C':
			n := copy(s.sqlstate[:], val)
			s.result.SQLState = s.sqlstate[:n]
		case 'M':
			s.errMsg = append(s.errMsg[:0], val...)
			s.result.Error = s.errMsg
		case 'D':
			s.errDet = append(s.errDet[:0], val...)
			s.result.Detail = s.errDet
		}
		if end >= len(b) {
			return
		}
		b = b[end+1:]
	}
}

// finishResult fills the slices of s.result for the Complete call.
func (s *backendScanner) finishResult() *Result {
	s.result.Tags = s.tags
	return &s.result
}

func trimNUL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == 0 {
		return b[:n-1]
	}
	return b
}
