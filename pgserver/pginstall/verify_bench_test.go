package pginstall

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkVerifyInstalledTree measures what reusing a tree costs: the
// full check Install makes (sizes and sha256 of every file) against the
// one discovery makes on every run (Check: sizes, owners and modes only),
// on a tree shaped like a real package (1,024 files, 60 MB). Compare the
// two as a ratio: go test -run - -bench VerifyInstalledTree ./pgserver/pginstall
func BenchmarkVerifyInstalledTree(b *testing.B) {
	cache := b.TempDir()
	root := filepath.Join(cache, "18-linux-x64")
	var entries []entry
	body := bytes.Repeat([]byte("0123456789abcdef"), 60<<20/1024/16)
	for i := 0; i < 1022; i++ {
		entries = append(entries, entry{name: fmt.Sprintf("package/native/share/f%04d", i), body: string(body)})
	}
	entries = append(entries, entry{name: "package/native/bin/initdb", body: "#!initdb", mode: 0o755},
		entry{name: "package/native/bin/postgres", body: versionPrefix + "18.4\n", mode: 0o755})
	tgz := filepath.Join(b.TempDir(), "p.tgz")
	if err := os.WriteFile(tgz, tarball(b, entries), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		b.Fatal(err)
	}
	files, err := unpack(tgz, root)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeMarker(root, marker{Version: "18.4.0-beta.17", Platform: "linux-x64", manifest: files}); err != nil {
		b.Fatal(err)
	}
	m, err := readMarker(root)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("install-sha256", func(b *testing.B) {
		b.SetBytes(int64(len(body)) * 1022)
		for i := 0; i < b.N; i++ {
			if err := verifyTree(root, m, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("discovery-check", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := Check(filepath.Join(root, "bin")); err != nil {
				b.Fatal(err)
			}
		}
	})
}
