package pgserver

import (
	"sync"

	"github.com/pginterleave/interleave/supervise"
)

var sweepOnce sync.Once

// sweepLeftoversOnce removes, once per process, the managed servers' (and
// build) directories that runs killed outright left behind, with the
// servers still running in them (see supervise.Sweep: only this user's,
// whose owner is dead, older than supervise.DefaultMinAge).
func sweepLeftoversOnce(logf func(string, ...any)) {
	sweepOnce.Do(func() {
		res, _ := supervise.Sweep(supervise.SweepOptions{MinAge: supervise.DefaultMinAge})
		if logf != nil {
			for _, l := range res.Removed {
				logf("removed %s, left behind by pid %d", l.Path, l.Owner)
			}
		}
	})
}
