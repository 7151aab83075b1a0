package jshost

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// tailBytes is how much of a process's stdout and stderr is kept for the
// message that explains its end.
const tailBytes = 4 << 10

// outputTail receives a Node process's stdout and stderr (the scenario's
// console.log and console.error, and the host's own diagnostics). It keeps
// the last tailBytes and, when forward is set, passes complete lines on to
// it, prefixed, under a lock shared by every process so that lines of two
// processes never mix.
type outputTail struct {
	mu      sync.Mutex
	tail    []byte
	partial []byte
	prefix  string
	forward io.Writer
	fwdMu   *sync.Mutex
	redact  func(string) string
}

func (o *outputTail) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.tail = append(o.tail, p...)
	if len(o.tail) > 2*tailBytes {
		o.tail = append(o.tail[:0], o.tail[len(o.tail)-tailBytes:]...)
	}
	if o.forward == nil {
		return len(p), nil
	}
	o.partial = append(o.partial, p...)
	if i := bytes.LastIndexByte(o.partial, '\n'); i >= 0 {
		var b strings.Builder
		for _, line := range strings.SplitAfter(string(o.partial[:i+1]), "\n") {
			if line != "" {
				b.WriteString(o.prefix + o.redact(line))
			}
		}
		o.partial = append(o.partial[:0], o.partial[i+1:]...)
		o.fwdMu.Lock()
		_, _ = io.WriteString(o.forward, b.String())
		o.fwdMu.Unlock()
	}
	return len(p), nil
}

// String is the kept tail on one line, passwords redacted.
func (o *outputTail) String() string {
	o.mu.Lock()
	t := o.tail
	if len(t) > tailBytes {
		t = t[len(t)-tailBytes:]
	}
	s := string(t)
	o.mu.Unlock()
	s = strings.Join(strings.Fields(s), " ")
	return o.redact(s)
}
