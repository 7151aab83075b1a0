package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/pginterleave/interleave/search"
)

// progressLine is the live status line of a search on a terminal: silent
// when stderr is not a terminal, under --json, or when not asked for.
type progressLine struct {
	w     io.Writer
	hook  func(search.Progress)
	mu    sync.Mutex
	last  time.Time
	shown bool
}

func newProgressLine(stderr io.Writer, enabled bool, hook func(search.Progress)) *progressLine {
	if !enabled || !isTerminal(stderr) {
		return &progressLine{hook: hook}
	}
	return &progressLine{w: stderr, hook: hook}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progressLine) update(s search.Progress) {
	if p.hook != nil {
		p.hook(s)
	}
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	rate := float64(s.Attempts) / s.Elapsed.Seconds()
	fmt.Fprintf(p.w, "\r\033[K%d attempts (%.1f/s), violations %d, frontier %d, %s", s.Attempts, rate, s.Violations, s.Frontier, s.Elapsed.Round(100*time.Millisecond))
	p.shown = true
}

func (p *progressLine) finish() {
	if p.w != nil && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
