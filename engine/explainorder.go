package engine

import (
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/sched"
)

// orderPolicy releases units in a wanted order: at each decision the
// earliest wanted unit that is pending now (a unit waiting on a lock is not
// pending; it is skipped until it is). When none of the wanted units is
// pending (a retried actor's new connection) the default policy decides.
// It is how explain runs a recorded order with two commands reversed, or at
// another isolation level, where commands may fail and the exact replay
// would stop.
type orderPolicy struct {
	want  []artifact.UnitRef
	names []string
}

// recordedOrder is every unit rec released, in the order it did.
func recordedOrder(rec *artifact.Artifact) []artifact.UnitRef {
	var out []artifact.UnitRef
	for _, d := range rec.Schedule.Decisions {
		out = append(out, d.Release...)
	}
	return out
}

// Choose implements sched.Policy.
func (p *orderPolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
	for k, w := range p.want {
		for i, c := range cands {
			if p.names[c.Ref.Actor] == w.Actor && c.Ref.Conn == w.Conn && c.Ref.Unit == w.Unit {
				p.want = append(p.want[:k:k], p.want[k+1:]...)
				return []int{i}, nil
			}
		}
	}
	return []int{0}, nil
}

// syncScansOff is the start-up option every actor connection and the
// control connection get: a sequential scan of a relation larger than a
// quarter of shared_buffers starts where the last scan of it, in any
// session, reported itself, so two reads that touch nothing else would
// not commute (cases ww-syncscan-*). A SET of it is a global statement.
const syncScansOff = "-c synchronize_seqscans=off"

// withStartOptions adds the worker's isolation level (when set), and
// syncScansOff, to the start-up options f gives each actor connection.
func (w *worker) withStartOptions(f func([]string) string) func([]string) string {
	extra := syncScansOff
	if w.isolation != "" {
		extra += " -c default_transaction_isolation=" + strings.ReplaceAll(w.isolation, " ", `\ `)
	}
	return func(params []string) string {
		base := ""
		if f != nil {
			base = f(params)
		}
		if base == "" {
			return extra
		}
		return base + " " + extra
	}
}
