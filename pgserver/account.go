package pgserver

import (
	"os/user"
	"strconv"
)

// account is the unprivileged account the server runs as when Interleave
// runs as root (initdb and postgres refuse root). nil means this process's
// own account.
type account struct {
	Uid, Gid uint32
}

func lookupAccount(name string) (uid, gid uint32, ok bool) {
	u, err := user.Lookup(name)
	if err != nil {
		return 0, 0, false
	}
	a, err1 := strconv.ParseUint(u.Uid, 10, 32)
	b, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil || a == 0 {
		return 0, 0, false
	}
	return uint32(a), uint32(b), true
}
