//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// notMine says whose path is when it is not this user's ("" when it is):
// clean removes only this user's leftovers.
func notMine(path string) string {
	st, err := os.Lstat(path)
	if err != nil {
		return err.Error()
	}
	if s, ok := st.Sys().(*syscall.Stat_t); ok && int(s.Uid) != os.Geteuid() {
		return fmt.Sprintf("belongs to uid %d, not to this user", s.Uid)
	}
	return ""
}
