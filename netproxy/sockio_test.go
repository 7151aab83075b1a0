package netproxy

import (
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadLoopMissesNoWakeUp plays request and response over real sockets
// many times, the peer answering at varying moments around the loop's
// return to the poller: every answer must arrive. Each request is written
// from a new goroutine, so writes may overlap the previous one's return
// (sockConn must be safe for concurrent callers, as any net.Conn).
func TestReadLoopMissesNoWakeUp(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			addr := "127.0.0.1:0"
			if network == "unix" {
				addr = filepath.Join(t.TempDir(), "s")
			}
			ln, err := net.Listen(network, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			const rounds = 5000
			var served, answered atomic.Int64
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				b := make([]byte, 1)
				for i := 0; i < rounds; i++ {
					if _, err := c.Read(b); err != nil {
						return
					}
					served.Add(1)
					if i%7 == 0 {
						time.Sleep(time.Duration(i%50) * time.Microsecond)
					}
					if _, err := c.Write([]byte{byte(i)}); err != nil {
						return
					}
					answered.Add(1)
				}
			}()
			nc, err := net.Dial(network, ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			c := wrapSocket(nc)
			defer c.Close()
			var got atomic.Int64
			asked := make(chan struct{}, 1)
			ask := func() {
				if _, err := c.Write([]byte{1}); err != nil {
					t.Error(err)
				}
			}
			ask()
			done := make(chan error, 1)
			go func() {
				done <- readLoop(c, make([]byte, 64), 64, func(b []byte) error {
					if got.Add(int64(len(b))) == rounds {
						return os.ErrClosed // stop
					}
					asked <- struct{}{}
					go ask()
					<-asked
					return nil
				})
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("after %d of %d answers the loop waits (the peer read %d requests and wrote %d answers)", got.Load(), rounds, served.Load(), answered.Load())
			}
		})
	}
}
