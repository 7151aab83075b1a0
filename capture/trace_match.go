package capture

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
)

// StreamKey identifies a capture stream: stream ids are per actor.
type StreamKey struct{ Actor, Stream int }

type streamKey = StreamKey

// maxStreams bounds the streams of one capture: each gets a client port in
// WritePCAPNG, from 40000 up.
const (
	firstPort  = 40000
	maxStreams = 65535 - firstPort + 1
)

// StreamPorts gives every stream of recs its client port: 40000 plus its
// rank in (actor, stream) order.
func StreamPorts(recs []Record) (map[StreamKey]int, []StreamKey, error) {
	seen := map[streamKey]bool{}
	var keys []streamKey
	for _, r := range recs {
		k := StreamKey{r.Actor, r.Stream}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if len(keys) > maxStreams {
		return nil, nil, fmt.Errorf("%w: %d streams; at most %d fit in TCP port numbers", ErrCorrupt, len(keys), maxStreams)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Actor != keys[j].Actor {
			return keys[i].Actor < keys[j].Actor
		}
		return keys[i].Stream < keys[j].Stream
	})
	ports := make(map[streamKey]int, len(keys))
	for i, k := range keys {
		ports[k] = firstPort + i
	}
	return ports, keys, nil
}

// HashBytes is the hash the scheduler records for a unit: FNV-1a 64 of its
// client bytes, as 16 hex digits.
func HashBytes(b []byte) string {
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf("%016x", h.Sum64())
}

type connRef struct {
	actor string
	conn  int
}

// connIndex is the artifact's connections, looked up from either side:
// the capture's (actor number, stream) and the units' (actor, conn).
type connIndex struct {
	names  map[int]string // actor number → name
	byKey  map[streamKey]ConnInfo
	byConn map[connRef]streamKey
}

// indexConns indexes conns; of two that claim the same stream, the first
// wins.
func indexConns(conns []ConnInfo) connIndex {
	ix := connIndex{names: map[int]string{}, byKey: map[streamKey]ConnInfo{}, byConn: map[connRef]streamKey{}}
	for _, c := range conns {
		k := streamKey{c.ActorIndex, c.Stream}
		if _, dup := ix.byKey[k]; dup {
			continue
		}
		ix.byKey[k] = c
		ix.byConn[connRef{c.Actor, c.Conn}] = k
		if _, ok := ix.names[c.ActorIndex]; !ok {
			ix.names[c.ActorIndex] = c.Actor
		}
	}
	return ix
}

// newStreamTracer starts the trace of stream k, attached to its connection
// when the artifact names one.
func newStreamTracer(k streamKey, port int, ix connIndex) *streamTracer {
	st := &streamTracer{t: StreamTrace{
		Actor: ix.names[k.Actor], ActorIndex: k.Actor, Stream: k.Stream, Conn: -1, Kind: "unattached",
		PCAPPort: port, Startup: []Message{}, Exchanges: []Exchange{},
	}}
	if st.t.Actor == "" {
		st.t.Actor = "actor#" + strconv.Itoa(k.Actor)
	}
	if c, ok := ix.byKey[k]; ok {
		st.t.Conn, st.t.Kind = c.Conn, "session"
	}
	return st
}

// assignUnits gives each stream its connection's units in ordinal order
// and returns the units whose connection is not in the capture.
func assignUnits(units []UnitInfo, ix connIndex, tracers map[streamKey]*streamTracer) []MissingUnit {
	var missing []MissingUnit
	sorted := append([]UnitInfo(nil), units...)
	sort.SliceStable(sorted, func(i, j int) bool { return unitBefore(sorted[i], sorted[j]) })
	for _, u := range sorted {
		k, ok := ix.byConn[connRef{u.Actor, u.Conn}]
		st := tracers[k]
		if !ok || st == nil {
			missing = append(missing, missingUnit(u, "its connection is not in the capture"))
			continue
		}
		u.Hash = strings.ToLower(u.Hash)
		st.units = append(st.units, u)
	}
	return missing
}

// unitBefore orders units by actor, connection and ordinal.
func unitBefore(a, b UnitInfo) bool {
	if a.Actor != b.Actor {
		return a.Actor < b.Actor
	}
	if a.Conn != b.Conn {
		return a.Conn < b.Conn
	}
	return a.Unit < b.Unit
}

// missingUnit reports u as missing: never released, or else for the
// reason given.
func missingUnit(u UnitInfo, otherwise string) MissingUnit {
	reason := otherwise
	if u.ReleaseStep < 0 {
		reason = "never released"
	} else if u.Fault == "reset" || u.Fault == "terminate" {
		reason = "released with fault " + u.Fault + ": the connection ended before it was sent"
	}
	return MissingUnit{UnitInfo: u, Reason: reason}
}

// matchUnit returns the unit whose hash data's bytes have, nil if none: the
// first not yet matched, so that units with the same bytes (BEGIN, COMMIT)
// match in ordinal order. Units it passes over are skipped for good.
func (st *streamTracer) matchUnit(data []byte) *UnitInfo {
	if len(st.units) <= st.next {
		return nil
	}
	if st.byHash == nil {
		st.byHash = map[string][]int{}
		for j, u := range st.units {
			st.byHash[u.Hash] = append(st.byHash[u.Hash], j)
		}
	}
	h := HashBytes(data)
	list := st.byHash[h]
	for len(list) > 0 && list[0] < st.next {
		list = list[1:] // passed over
	}
	var unit *UnitInfo
	if len(list) > 0 {
		j := list[0]
		st.skipped = append(st.skipped, st.units[st.next:j]...)
		u := st.units[j]
		unit, st.next = &u, j+1
		list = list[1:]
	}
	st.byHash[h] = list
	return unit
}

// unmatched reports the units of the stream no client write matched: after
// the stream's last match, and those passed over by a later unit's match.
func (st *streamTracer) unmatched(stream int) []MissingUnit {
	var out []MissingUnit
	for _, u := range st.units[st.next:] {
		out = append(out, missingUnit(u, fmt.Sprintf("no client write of stream %d hashes to %s", stream, u.Hash)))
	}
	for _, u := range st.skipped {
		out = append(out, missingUnit(u, fmt.Sprintf("no client write of stream %d hashes to %s before the next unit's", stream, u.Hash)))
	}
	return out
}
