package netproxy

import (
	"fmt"
	"sync/atomic"
)

// memoryBudget bounds what a proxy's connections buffer together beyond
// their small first buffers: a client message is read whole before it is
// forwarded, so without a bound N clients each sending a message of
// MaxMessage bytes make the proxy hold N times that (issue 19 item 4:
// four clients sending 200 MiB each, 1.49 GB).
type memoryBudget struct {
	limit   int64
	used    atomic.Int64
	peak    atomic.Int64
	refused atomic.Int64
}

// ErrMemoryBudget is returned to a connection whose message would take
// the proxy over its memory budget.
type ErrMemoryBudget struct {
	Want, Used, Limit int64
}

func (e *ErrMemoryBudget) Error() string {
	return fmt.Sprintf("the proxy's memory budget of %d bytes for client messages is taken by other connections (%d in use, this message needs %d more); try again, or raise the budget", e.Limit, e.Used, e.Want)
}

func (b *memoryBudget) reserve(n int64) error {
	for {
		used := b.used.Load()
		if used+n > b.limit {
			b.refused.Add(1)
			return &ErrMemoryBudget{Want: n, Used: used, Limit: b.limit}
		}
		if b.used.CompareAndSwap(used, used+n) {
			for {
				p := b.peak.Load()
				if used+n <= p || b.peak.CompareAndSwap(p, used+n) {
					return nil
				}
			}
		}
	}
}

func (b *memoryBudget) free(n int64) { b.used.Add(-n) }

// MemoryStats is what a proxy's connections buffered (see
// Config.MaxBuffered).
type MemoryStats struct {
	Limit   int64 // the budget; 0: none
	InUse   int64 // buffered now, beyond each connection's first buffer
	Peak    int64 // the most buffered at once
	Refused int64 // messages refused for the budget
}
