package netproxy

import (
	"context"
	"errors"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestAcceptSurvivesEMFILE: when the process runs out of file descriptors
// Accept fails with EMFILE; the proxy waits and accepts again once
// descriptors are free, and the client that waited is served (issue 19
// item 4: the accept loop returned on any error, the listening socket
// stayed open and every later client timed out).
func TestAcceptSurvivesEMFILE(t *testing.T) {
	var failures atomic.Int32
	p, err := Listen(Config{
		Dial:          func(context.Context) (net.Conn, error) { return nil, errors.New("no server in this test") },
		Passthrough:   true,
		OnAcceptError: func(error, time.Duration) { failures.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	var saved syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &saved); err != nil {
		t.Fatal(err)
	}
	restore := func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &saved); err != nil {
			t.Fatal(err)
		}
	}
	defer restore()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("needs /proc/self/fd")
	}
	// A limit a little above the descriptors open, every free one of them
	// taken but one: the client's socket takes that one, and the proxy's
	// Accept finds none.
	low := saved
	low.Cur = uint64(len(entries) + 16)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	var fill []*os.File
	defer func() {
		for _, f := range fill {
			f.Close()
		}
	}()
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			break
		}
		fill = append(fill, f)
	}
	if len(fill) == 0 {
		restore()
		t.Fatal("no descriptor could be taken")
	}
	fill[len(fill)-1].Close()
	fill = fill[:len(fill)-1]
	client, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		restore()
		t.Fatalf("dial with %d descriptors: %v", low.Cur, err)
	}
	defer client.Close()
	deadline := time.Now().Add(5 * time.Second)
	for failures.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // Accept fails again meanwhile
	restore()
	for _, f := range fill {
		f.Close()
	}
	fill = nil
	if failures.Load() == 0 {
		t.Error("OnAcceptError was not told of a failed Accept")
	}
	// A start-up packet: the proxy, serving again, answers that it cannot
	// reach the server.
	if _, err := client.Write([]byte("\x00\x00\x00\x12\x00\x03\x00\x00user\x00bob\x00\x00")); err != nil {
		t.Fatal(err)
	}
	client.SetReadDeadline(time.Now().Add(10 * time.Second))
	b := make([]byte, 1)
	if _, err := client.Read(b); err != nil || b[0] != 'E' {
		t.Fatalf("after EMFILE the proxy did not serve the waiting client: read %q, %v", b, err)
	}
}
