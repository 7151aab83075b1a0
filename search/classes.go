package search

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"sort"
)

// classOf names the equivalence class of an attempt's trace: its events
// (unit and part) and, for each, the events that happen before it under
// the reduction's dependence. Two orders of one class differ only by
// swapping independent events; an optimal reduction runs one order per
// class (Options.CountClasses measures how far the search is from that).
func classOf(tr *Trace) [sha256.Size]byte {
	ev := tr.Events
	before := happensBefore(ev, waitWindows(ev))
	type key struct {
		actor, conn, unit int
		kind              EventKind
	}
	keys := make([]key, len(ev))
	idx := make([]int, len(ev))
	for i := range ev {
		keys[i] = key{ev[i].Ref.Actor, ev[i].Ref.Conn, ev[i].Ref.Unit, ev[i].Kind}
		idx[i] = i
	}
	slices.SortFunc(idx, func(x, y int) int {
		a, b := keys[x], keys[y]
		return cmp.Or(cmp.Compare(a.actor, b.actor), cmp.Compare(a.conn, b.conn), cmp.Compare(a.unit, b.unit), cmp.Compare(a.kind, b.kind))
	})
	rank := make([]int, len(ev)) // event index -> position in key order
	for r, i := range idx {
		rank[i] = r
	}
	h := sha256.New()
	var b [4]byte
	put := func(v int) {
		binary.BigEndian.PutUint32(b[:], uint32(v))
		h.Write(b[:])
	}
	for _, j := range idx {
		k := keys[j]
		put(k.actor)
		put(k.conn)
		put(k.unit)
		put(int(k.kind))
		var preds []int
		for i := 0; i < j; i++ {
			if before[j][i/64]&(1<<(i%64)) != 0 {
				preds = append(preds, rank[i])
			}
		}
		sort.Ints(preds)
		put(len(preds))
		for _, p := range preds {
			put(p)
		}
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
