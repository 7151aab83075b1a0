package capture

import (
	"sort"
	"time"

	"github.com/pginterleave/interleave/netproxy"
)

// Client decoding states.
const (
	clientStartup = iota // start-up packets: SSLRequest, StartupMessage, CancelRequest
	clientTyped          // typed messages
)

// streamTracer decodes one stream as its records arrive in capture order.
type streamTracer struct {
	t       StreamTrace
	started bool
	units   []UnitInfo // this connection's units, by ordinal
	next    int        // the first unit not yet matched
	byHash  map[string][]int
	skipped []UnitInfo  // units passed over by a later unit's match
	stmts   *Statements // what the client writes prepare, for matchMasked

	client   int
	lastAuth uint32 // the last authentication request: names the client's answer
	cur      int    // the latest exchange; -1: start-up
	// ReadyForQuery messages each exchange's client messages ask for and
	// those it got: server messages go to the first exchange still owed
	// one, so that an answer still arriving after a later write (Terminate
	// after a cancel) stays with its unit.
	zWant, zGot []int
	open        int

	rec, sub int // the record being decoded (from 1) and messages so far

	// budget, shared by the streams of a trace, is how many more messages
	// may be filed (nil: no bound); past it nothing more is decoded.
	budget *messageBudget

	// Server bytes not yet decoded: they arrive in chunks that need not
	// follow message boundaries.
	buf        []byte
	base       int64 // stream offset of buf[0]
	segs       []seg // the records buf came from
	broken     bool  // a length field was invalid: the rest does not frame
	sslPending int   // single-byte answers to SSLRequest/GSSENCRequest owed
}

type seg struct {
	off int64 // stream offset of the record's first byte
	at  time.Duration
	ex  int
	rec int
}

func micros(d time.Duration) int64 {
	if d < 0 {
		return 0
	}
	return d.Microseconds()
}

func (st *streamTracer) record(r Record) {
	if !st.started {
		st.started, st.t.StartUS, st.cur = true, micros(r.At), -1
	}
	st.rec++
	switch r.Kind {
	case KindClosed:
		st.flushServer()
		st.t.Closed = &Closed{AtUS: micros(r.At), Reason: string(r.Data)}
	case KindRedacted:
		if r.Dir == netproxy.ClientToServer {
			st.add(-2, st.redacted(r, fromClient))
			return
		}
		st.flushServer()
		if code, ok := redactedAuthCode(r); ok {
			st.lastAuth = code
		}
		st.add(st.cur, st.redacted(r, fromServer))
	default:
		if len(r.Data) == 0 {
			return
		}
		if r.Dir == netproxy.ClientToServer {
			st.clientRecord(r)
		} else {
			st.serverBytes(r)
		}
	}
}

// add appends m to exchange ex (-1: start-up; -2: where a client message
// goes now), merging runs of DataRow and CopyData.
func (st *streamTracer) add(ex int, m Message) {
	if ex == -2 {
		ex = st.cur
	}
	if m.ord[0] == 0 {
		m.ord[0] = st.rec
	}
	st.sub++
	m.ord[1] = st.sub
	if st.budget.spent() {
		return
	}
	list := &st.t.Startup
	if ex >= 0 {
		list = st.exchangeList(ex, m)
	}
	if appendMerged(list, m) && st.budget != nil {
		st.budget.left--
	}
}

// room is how many more messages may be decoded from one write.
func (st *streamTracer) room() int {
	if st.budget == nil {
		return -1
	}
	return st.budget.left + 1
}

// exchangeList returns the list of exchange ex that m goes to. A server
// message goes to the first exchange still owed a ReadyForQuery, if that
// is earlier than ex, and times the exchange's answer.
func (st *streamTracer) exchangeList(ex int, m Message) *[]Message {
	if m.From == fromClient {
		return &st.t.Exchanges[ex].Client
	}
	for st.open < len(st.zWant) && st.zGot[st.open] >= st.zWant[st.open] {
		st.open++
	}
	if st.open < ex {
		ex = st.open
	}
	if m.Type == "ReadyForQuery" {
		st.zGot[ex]++
	}
	e := &st.t.Exchanges[ex]
	first, last := m.AtUS, max(m.AtUS, m.LastUS)
	if e.FirstServerUS == nil {
		e.FirstServerUS = &first
	}
	e.LastServerUS = &last
	return &e.Server
}

// appendMerged appends m to list, folding a DataRow or CopyData into a run
// of the same type and direction that ends the list; it reports whether
// the list grew.
func appendMerged(list *[]Message, m Message) bool {
	if n := len(*list); n > 0 && (m.Type == "DataRow" || m.Type == "CopyData") {
		p := &(*list)[n-1]
		if p.Type == m.Type && p.From == m.From {
			p.Count++
			p.Length += m.Length
			if t := max(m.AtUS, m.LastUS); t > p.AtUS {
				p.LastUS = t
			}
			return false
		}
	}
	*list = append(*list, m)
	return true
}

func (st *streamTracer) finish() {
	st.flushServer()
	sortMessages(st.t.Startup)
}

func sortMessages(ms []Message) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i].ord, ms[j].ord
		return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
	})
}
