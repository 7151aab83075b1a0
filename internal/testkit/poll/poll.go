// Package poll waits in tests for a condition instead of sleeping for a
// guessed time: a test that polls is as fast as the machine allows and
// fails saying what it waited for, never because the machine was busy. It
// imports nothing of Interleave, so every package's tests can use it.
package poll

import "time"

// Deadline is how long Until waits before it gives up: a bound on a hang,
// not a measure of speed (nothing that works takes a fraction of it, even
// on a loaded machine).
const Deadline = time.Minute

// TB is the part of *testing.T (or B, F) that Until uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Until calls cond until it reports true: at once, then backing off from
// 1ms to 50ms between calls. After Deadline it fails tb with "gave up
// after 1m0s waiting for " + what, so name the condition ("the proxied
// connections to close").
func Until(tb TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(Deadline)
	wait := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("gave up after %v waiting for %s", Deadline, what)
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}
