package capture

import (
	"fmt"
	"sort"

	"github.com/pginterleave/interleave/artifact"
)

// UnitInfo describes one release unit of the attempt the capture belongs to
// (the caller converts the artifact's units).
type UnitInfo struct {
	Actor       string   `json:"actor"`
	Conn        int      `json:"conn"`
	Unit        int      `json:"unit"`
	Hash        string   `json:"hash"`        // FNV-1a 64 of the unit's client bytes, 16 hex digits
	ReleaseStep int      `json:"releaseStep"` // -1: never released
	SQL         []string `json:"sql,omitempty"`
	// Fault is the fault injected at the unit's release (lost-reply,
	// reset, terminate), if any.
	Fault string `json:"fault,omitempty"`
}

// ConnInfo maps a capture stream to an actor's connection.
type ConnInfo struct {
	Actor string `json:"actor"`
	// ActorIndex is the actor's position in the scenario: the actor number
	// the capture's records carry.
	ActorIndex int `json:"actorIndex"`
	Conn       int `json:"conn"`
	Stream     int `json:"stream"` // per actor: each actor has its own proxy
}

// TraceResult is a capture decoded message by message.
type TraceResult struct {
	Streams []StreamTrace `json:"streams"`
	// Missing lists the units with no client write in the capture: never
	// released, or (a problem) released but not found.
	Missing []MissingUnit `json:"missing,omitempty"`
	// unscheduled: a proxy capture, whose client writes are no release
	// units (WriteText calls them client writes).
	unscheduled bool
}

// StreamTrace is one proxied client connection.
type StreamTrace struct {
	Actor      string `json:"actor"`
	ActorIndex int    `json:"actorIndex"`
	Stream     int    `json:"stream"`
	Conn       int    `json:"conn"` // -1: not an attached connection
	// Kind is "session" (an attached connection), "cancel" (a CancelRequest
	// connection) or "unattached" (start-up did not complete).
	Kind string `json:"kind"`
	// PCAPPort is the client's TCP port for this stream in WritePCAPNG's
	// output (tcp.port in Wireshark).
	PCAPPort  int        `json:"pcapPort"`
	StartUS   int64      `json:"startUs"`
	Startup   []Message  `json:"startup"`
	Exchanges []Exchange `json:"exchanges"`
	Closed    *Closed    `json:"closed,omitempty"`
}

// Exchange is one client write after start-up and the server messages that
// followed it until the next one: a release unit and its answer, or client
// bytes outside any unit (Terminate).
type Exchange struct {
	Unit          *UnitInfo `json:"unit,omitempty"`
	ClientUS      int64     `json:"clientUs"`
	FirstServerUS *int64    `json:"firstServerUs,omitempty"`
	LastServerUS  *int64    `json:"lastServerUs,omitempty"`
	Client        []Message `json:"client"`
	Server        []Message `json:"server"`
}

// Closed is the end of a stream.
type Closed struct {
	AtUS   int64  `json:"atUs"`
	Reason string `json:"reason,omitempty"`
}

// MissingUnit is a unit the capture has no client write for.
type MissingUnit struct {
	UnitInfo
	Reason string `json:"reason"`
}

// Message is one protocol message (or a run of DataRow or CopyData
// messages, or bytes that did not decode).
type Message struct {
	AtUS   int64  `json:"atUs"`             // first byte
	LastUS int64  `json:"lastUs,omitempty"` // last byte, when later than the first
	From   string `json:"from"`             // client or server
	Type   string `json:"type"`
	Length int    `json:"length"`          // bytes on the wire, type and length fields included
	Count  int    `json:"count,omitempty"` // DataRow and CopyData runs: messages

	SQL       string           `json:"sql,omitempty"`
	Statement *string          `json:"statement,omitempty"`
	Portal    *string          `json:"portal,omitempty"`
	Params    []artifact.Param `json:"params,omitempty"`
	// ParamTypes: a Parse's declared parameter types (Detail names them).
	ParamTypes []uint32 `json:"-"`
	Target     string   `json:"target,omitempty"` // Describe, Close: statement or portal
	Columns    []Column `json:"columns,omitempty"`
	Tag        string   `json:"tag,omitempty"`
	Severity   string   `json:"severity,omitempty"`
	SQLState   string   `json:"sqlstate,omitempty"`
	Text       string   `json:"message,omitempty"`
	Status     string   `json:"status,omitempty"` // ReadyForQuery: I, T or E
	Detail     string   `json:"detail,omitempty"`

	Redacted    bool `json:"redacted,omitempty"`
	Undecodable bool `json:"undecodable,omitempty"`

	// ord orders the messages of a stream by the record their first byte
	// came in, then by decoding order.
	ord [2]int
}

// Column is one field of a RowDescription.
type Column struct {
	Name    string `json:"name"`
	TypeOID uint32 `json:"typeOid"`
	Format  int16  `json:"format"`
}

const (
	fromClient = "client"
	fromServer = "server"
)

// MaxTraceMessages bounds the protocol messages Trace decodes (runs of
// DataRow and CopyData count once): a message costs about 300 bytes
// decoded and a Sync takes 5 bytes of capture, so a 250 MiB record of
// Syncs, 74 KB compressed, made 50 million of them (8.8 GB). At the bound
// a trace takes about 300 MiB besides the capture.
const MaxTraceMessages = 1 << 20

// messageBudget is what Trace's stream tracers may still decode.
type messageBudget struct{ left int }

func (b *messageBudget) spent() bool { return b != nil && b.left < 0 }

func (b *messageBudget) err() error {
	return fmt.Errorf("%w: more than %d protocol messages, more than trace decodes (about %d MiB of memory)", ErrOverLimit, MaxTraceMessages, MaxTraceMessages*300>>20)
}

// Trace decodes raw (a capture) message by message, per stream and per
// release unit. units and conns come from the attempt's artifact; a unit is
// matched to the client write whose bytes hash to its hash. Bytes that do
// not decode become explicit undecodable messages; only a capture whose
// records do not parse is an error.
func Trace(raw []byte, units []UnitInfo, conns []ConnInfo) (*TraceResult, error) {
	recs, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	ports, keys, err := StreamPorts(recs)
	if err != nil {
		return nil, err
	}
	ix := indexConns(conns)
	budget := &messageBudget{left: MaxTraceMessages}
	tracers := make(map[streamKey]*streamTracer, len(keys))
	for _, k := range keys {
		tracers[k] = newStreamTracer(k, ports[k], ix)
		tracers[k].budget = budget
	}
	res := &TraceResult{Streams: []StreamTrace{}}
	res.Missing = assignUnits(units, ix, tracers)
	for _, r := range recs {
		tracers[streamKey{r.Actor, r.Stream}].record(r)
		if budget.spent() {
			return nil, budget.err()
		}
	}
	for _, k := range keys {
		st := tracers[k]
		st.finish()
		if budget.spent() {
			return nil, budget.err()
		}
		res.Missing = append(res.Missing, st.unmatched(k.Stream)...)
		res.Streams = append(res.Streams, st.t)
	}
	sort.SliceStable(res.Missing, func(i, j int) bool {
		return unitBefore(res.Missing[i].UnitInfo, res.Missing[j].UnitInfo)
	})
	return res, nil
}
