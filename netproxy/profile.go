package netproxy

import (
	"fmt"
	"strings"
)

// Profile selects how client messages are grouped into release units.
type Profile uint8

const (
	// ProfileSyncCycle: a Query, or an extended-protocol cycle through Sync,
	// or a FunctionCall is one unit. Flush before Sync fails the connection.
	ProfileSyncCycle Profile = iota
	// ProfileFlushStages additionally ends a unit at each Flush; the unit
	// completes when the responses its messages call for have arrived.
	ProfileFlushStages
)

func (p Profile) String() string {
	if p == ProfileFlushStages {
		return "flush-stages"
	}
	return "sync-cycle"
}

// ParseProfile accepts a protocol profile name ("sync-cycle", "flush-stages",
// with or without a "-v1" suffix).
func ParseProfile(s string) (Profile, error) {
	switch strings.TrimSuffix(s, "-v1") {
	case "", "sync-cycle":
		return ProfileSyncCycle, nil
	case "flush-stages":
		return ProfileFlushStages, nil
	}
	return 0, fmt.Errorf("unknown protocol profile %q (known: sync-cycle, flush-stages)", s)
}

// Set implements flag.Value.
func (p *Profile) Set(v string) (err error) { *p, err = ParseProfile(v); return err }
