package pginstall

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// versionPrefix is how every postgres binary starts the line `postgres
// --version` prints (PG_BACKEND_VERSIONSTR); the string is in the binary of
// every platform, so another platform's version is read the same way as
// this one's, without running anything.
const versionPrefix = "postgres (PostgreSQL) "

// serverVersion is PostgreSQL's own version ("17.10", "18beta1", "15.18
// (Debian 15.18-0+deb12u1)") as the tree's bin/postgres reports it, or ""
// when the binary does not say.
func serverVersion(dir, platform string) string {
	name := "postgres"
	if strings.HasPrefix(platform, "windows-") {
		name += ".exe"
	}
	b, err := os.ReadFile(filepath.Join(dir, "bin", name))
	if err != nil {
		return ""
	}
	return versionIn(b)
}

// versionIn finds the version after versionPrefix in a binary's bytes:
// the printable text up to the end of the line or string.
func versionIn(b []byte) string {
	i := bytes.Index(b, []byte(versionPrefix))
	if i < 0 {
		return ""
	}
	rest := b[i+len(versionPrefix):]
	n := 0
	for n < len(rest) && rest[n] >= ' ' && rest[n] <= '~' {
		if n++; n > maxVersion {
			return ""
		}
	}
	v := string(rest[:n])
	if v == "" || v[0] < '0' || v[0] > '9' {
		return ""
	}
	return v
}

// maxVersion bounds what versionIn takes for a version.
const maxVersion = 80
