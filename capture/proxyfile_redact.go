package capture

import (
	"sync"

	"github.com/pginterleave/interleave/internal/redact"
	"github.com/pginterleave/interleave/netproxy"
)

// proxySecrets masks what a proxy capture keeps as it is written: the
// secrets it was configured with, the value of every PASSWORD literal a
// client sends (masked where it stands, and from then on wherever it
// occurs when it is at least redact.MinLiteral bytes). A recording proxy
// writes as bytes pass, so a secret split between two reads of the
// server's bytes is not seen whole; a client's write is whole messages.
type proxySecrets struct {
	mu sync.Mutex
	s  redact.Secrets
}

// masked is data, or a masked copy of it (data belongs to the proxy and is
// never written).
func (p *proxySecrets) masked(dir netproxy.Direction, data []byte) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if dir == netproxy.ClientToServer {
		if lits := redact.Literals(data); len(lits) > 0 {
			p.s = p.s.With(lits...)
		}
	}
	return p.s.Masked(data)
}
