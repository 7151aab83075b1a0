package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pginterleave/interleave/engine"
)

// pauseHook is replay --pause-at: it prints how to look at the paused
// attempt and waits for Enter on stdin (or for Ctrl+C, which cancels ctx
// and cleans up as always). nil when no pause was asked for.
func pauseHook(w io.Writer, s *settings) func(context.Context, engine.Pause) {
	if s.pauseAt < 0 {
		return nil
	}
	return func(ctx context.Context, p engine.Pause) {
		PrintPause(w, p)
		enter := make(chan struct{})
		go func() {
			_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
			close(enter)
		}()
		select {
		case <-enter:
		case <-ctx.Done():
		}
	}
}

// PrintPause says where a paused replay stands and how to look.
func PrintPause(w io.Writer, p engine.Pause) {
	fmt.Fprintf(w, "Paused after step %d (%s: %s); every session is open.\n", p.Step, p.Actor, oneLine(p.SQL))
	fmt.Fprintf(w, "Look at the attempt's database:\n  %s\n", p.PSQL)
	if p.Password {
		fmt.Fprintf(w, "  (the server wants a password: set PGPASSWORD to the one in your --database-url)\n")
	}
	fmt.Fprintf(w, "Sessions:\n")
	for _, s := range p.Sessions {
		xid := ""
		if s.XID != "" {
			xid = ", transaction id " + s.XID
		}
		wait := ""
		if s.WaitEvent != "" && !strings.HasPrefix(s.WaitEvent, "Client:") {
			wait = ", waiting on " + s.WaitEvent
		}
		fmt.Fprintf(w, "  %-10s connection #%d  backend pid %d  %s%s%s\n", s.Actor, s.Conn, s.PID, s.State, xid, wait)
		if s.Query != "" {
			fmt.Fprintf(w, "             last command: %s\n", oneLine(s.Query))
		}
	}
	var pids []string
	for _, s := range p.Sessions {
		pids = append(pids, fmt.Sprint(s.PID))
	}
	fmt.Fprintf(w, "For example: SELECT pid, locktype, relation::regclass, mode, granted FROM pg_locks WHERE pid IN (%s);\n", strings.Join(pids, ", "))
	fmt.Fprintf(w, "Press Enter to continue the replay; Ctrl+C stops it and removes the database.\n")
}
