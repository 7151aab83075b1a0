//go:build !linux

package artifact

import (
	"errors"
	"os"
)

// CreateUnnamed is not supported here: callers use a named temporary file.
func CreateUnnamed(dir string) (*os.File, bool) { return nil, false }

// LinkUnnamed is not supported here.
func LinkUnnamed(f *os.File, path string) error {
	return errors.New("unnamed files are not supported on this system")
}
