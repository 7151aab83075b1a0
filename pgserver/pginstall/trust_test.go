package pginstall

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/internal/testkit/testenv"
)

// nobody is the uid and gid a planted directory is given (the usual
// "nobody" on Linux).
const nobody = 65534

func needRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Require(t, "root", errors.New("the tests do not run as root"), "run them as root to "+why)
	}
}

// chownTree gives every entry below dir to uid.
func chownTree(t *testing.T, dir string, uid int) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A tree that is no longer the package's, or that another user owns or can
// write, is not reused: it is installed again, and said so. Before the
// file list and the owner checks, every one of these was "already
// installed".
func TestInstallReplacesATreeThatIsNotThePackages(t *testing.T) {
	srv := fakeRegistry(t, nil)
	for _, tc := range []struct {
		name   string
		root   bool
		tamper func(t *testing.T, dir string)
		want   string // in Replaced
	}{
		{"initdb rewritten, same size", false, func(t *testing.T, dir string) {
			p := filepath.Join(dir, "bin", "initdb")
			b, _ := os.ReadFile(p)
			b[0] ^= 0x20
			if err := os.WriteFile(p, b, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "bin/initdb changed"},
		{"postgres deleted", false, func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "bin", "postgres")); err != nil {
				t.Fatal(err)
			}
		}, "bin/postgres is missing"},
		{"a library added", false, func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "lib", "libevil.so"), []byte("ELF"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "lib/libevil.so is not part of the package"},
		{"a link pointed elsewhere", false, func(t *testing.T, dir string) {
			p := filepath.Join(dir, "lib", "libpq.so")
			os.Remove(p)
			if err := os.Symlink("/etc/passwd", p); err != nil {
				t.Fatal(err)
			}
		}, `lib/libpq.so points to "/etc/passwd"`},
		{"initdb no longer executable", false, func(t *testing.T, dir string) {
			if err := os.Chmod(filepath.Join(dir, "bin", "initdb"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "bin/initdb is no longer executable"},
		{"bin group-writable", false, func(t *testing.T, dir string) {
			if err := os.Chmod(filepath.Join(dir, "bin"), 0o775); err != nil {
				t.Fatal(err)
			}
		}, "bin is writable by other users"},
		{"postgres world-writable", false, func(t *testing.T, dir string) {
			if err := os.Chmod(filepath.Join(dir, "bin", "postgres"), 0o757); err != nil {
				t.Fatal(err)
			}
		}, "postgres is writable by other users"},
		{"the tree owned by another user", true, func(t *testing.T, dir string) {
			chownTree(t, dir, nobody)
		}, "belongs to uid 65534"},
		{"the marker owned by another user", true, func(t *testing.T, dir string) {
			if err := os.Chown(filepath.Join(dir, markerFile), nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}, "belongs to uid 65534"},
		{"an install by an older Interleave (no file list)", false, func(t *testing.T, dir string) {
			m, err := readMarker(dir)
			if err != nil {
				t.Fatal(err)
			}
			m.manifest = manifest{}
			os.Remove(filepath.Join(dir, markerFile))
			if err := writeMarker(dir, m); err != nil {
				t.Fatal(err)
			}
		}, "lists no files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root {
				needRoot(t, "give a directory to another user")
			}
			cache := t.TempDir()
			opts := Options{Major: 17, Platform: "linux-x64", CacheDir: cache, Registry: srv.URL}
			first, err := Install(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			tc.tamper(t, first.Dir)
			var logged []string
			opts.Logf = func(f string, a ...any) { logged = append(logged, f) }
			again, err := Install(context.Background(), opts)
			if err != nil {
				t.Fatalf("install after the change: %v", err)
			}
			if again.Reused || !strings.Contains(again.Replaced, tc.want) {
				t.Fatalf("install after the change: reused %v, replaced %q; want it installed again because %q", again.Reused, again.Replaced, tc.want)
			}
			if len(logged) == 0 || !strings.HasPrefix(logged[0], "not reusing") {
				t.Errorf("the replacement was not reported through Logf: %q", logged)
			}
			m, err := readMarker(again.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := verifyTree(again.Dir, m, true); err != nil {
				t.Fatalf("the tree installed again does not verify: %v", err)
			}
			third, err := Install(context.Background(), opts)
			if err != nil || !third.Reused || third.Version != "17.10" {
				t.Fatalf("a third install: %+v %v; want the repaired tree reused", third, err)
			}
		})
	}
}

// A cache directory another user owns, or can write to, is refused before
// anything in it is read or replaced: the tree planted there is neither
// reused nor touched, and nothing is downloaded into it.
func TestInstallRefusesACacheDirectoryOthersControl(t *testing.T) {
	srv := fakeRegistry(t, nil)
	// A complete, valid-looking tree, as another user would plant it.
	source := t.TempDir()
	good, err := Install(context.Background(), Options{Major: 17, Platform: "linux-x64", CacheDir: source, Registry: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		root  bool
		setup func(t *testing.T, cache string)
		want  string
	}{
		{"owned by another user", true, func(t *testing.T, cache string) {
			chownTree(t, cache, nobody)
		}, "belongs to uid 65534"},
		{"writable by its group", false, func(t *testing.T, cache string) {
			os.Chmod(cache, 0o775)
		}, "is writable by other users (mode -rwxrwxr-x)"},
		{"writable by all", false, func(t *testing.T, cache string) {
			os.Chmod(cache, 0o777)
		}, "is writable by other users (mode -rwxrwxrwx)"},
		{"writable by all, sticky", false, func(t *testing.T, cache string) {
			os.Chmod(cache, 0o777|os.ModeSticky)
		}, "is writable by other users"},
		{"below a directory another user owns", true, func(t *testing.T, cache string) {
			if err := os.Chown(filepath.Dir(cache), nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}, "/shared belongs to uid 65534"},
		{"below a directory writable by all, not sticky", false, func(t *testing.T, cache string) {
			os.Chmod(filepath.Dir(cache), 0o777)
		}, "writable by all users without the sticky bit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root {
				needRoot(t, "give a directory to another user")
			}
			cache := filepath.Join(t.TempDir(), "shared", "pg")
			planted := filepath.Join(cache, "17-linux-x64")
			if err := os.MkdirAll(cache, 0o755); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("cp", "-a", good.Dir, planted).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v %s", err, out)
			}
			tc.setup(t, cache)
			before, _ := os.ReadDir(cache)
			_, err := Install(context.Background(), Options{Major: 17, Platform: "linux-x64", CacheDir: cache, Registry: srv.URL})
			if !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("install into it: %v; want ErrUnsafeDir saying %q", err, tc.want)
			}
			if after, _ := os.ReadDir(cache); len(after) != len(before) {
				t.Fatalf("the refused install changed the cache: %v, before %v", after, before)
			}
			if !strings.Contains(err.Error(), "install into") {
				t.Errorf("the error does not say what to do: %v", err)
			}
		})
	}
	// A directory above that is writable by all but sticky (/tmp) is fine.
	cache := filepath.Join(t.TempDir(), "tmp", "pg")
	os.MkdirAll(cache, 0o755)
	os.Chmod(filepath.Dir(cache), 0o777|os.ModeSticky)
	if _, err := Install(context.Background(), Options{Major: 17, Platform: "linux-x64", CacheDir: cache, Registry: srv.URL}); err != nil {
		t.Fatalf("a cache below a sticky directory writable by all: %v", err)
	}
}

// The version read from a real postgres binary is what `postgres
// --version` prints.
func TestServerVersionOfARealBinary(t *testing.T) {
	var bins []string
	if dir := os.Getenv("INTERLEAVE_PG_BIN"); dir != "" {
		bins = append(bins, filepath.Join(dir, "postgres"))
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	more, _ := filepath.Glob("/var/cache/interleave/pg*/*-linux-x64/bin/postgres")
	bins = append(append(bins, found...), more...)
	if len(bins) == 0 {
		t.Fatal("this test needs PostgreSQL's server binaries (apt-get install postgresql, or set INTERLEAVE_PG_BIN)")
	}
	for _, bin := range bins {
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatalf("%s --version: %v", bin, err)
		}
		want := strings.TrimPrefix(strings.TrimSpace(string(out)), versionPrefix)
		if got := serverVersion(filepath.Dir(filepath.Dir(bin)), "linux-x64"); got != want {
			t.Errorf("%s: read %q from the binary; postgres --version says %q", bin, got, want)
		}
	}
	for in, want := range map[string]string{
		"xx" + versionPrefix + "16.4\n":          "16.4",
		versionPrefix + "18beta1\x00":            "18beta1",
		versionPrefix + "\n":                     "",
		"no version here":                        "",
		versionPrefix + "(Debian 15.8-1)\x00abc": "",
		versionPrefix + "15.8 (Debian 15.8-1)\n": "15.8 (Debian 15.8-1)",
	} {
		if got := versionIn([]byte(in)); got != want {
			t.Errorf("versionIn(%q) = %q; want %q", in, got, want)
		}
	}
}

// Check, what discovery calls on every run, accepts a tree as Install left
// it and refuses one that changed, another user's, or one in a cache
// directory others can write.
func TestCheckForDiscovery(t *testing.T) {
	srv := fakeRegistry(t, nil)
	cache := filepath.Join(t.TempDir(), "pg")
	inst, err := Install(context.Background(), Options{Major: 17, Platform: "linux-x64", CacheDir: cache, Registry: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(inst.BinDir); err != nil {
		t.Fatalf("a fresh install: %v", err)
	}
	if err := os.WriteFile(filepath.Join(inst.BinDir, "initdb"), []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Check(inst.BinDir); err == nil || !strings.Contains(err.Error(), "bin/initdb has") {
		t.Fatalf("a rewritten initdb of another size: %v", err)
	}
	if _, err := Install(context.Background(), Options{Major: 17, Platform: "linux-x64", CacheDir: cache, Registry: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inst.BinDir, "pg_evil"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Check(inst.BinDir); err == nil || !strings.Contains(err.Error(), "bin/pg_evil is not part of the package") {
		t.Fatalf("a file added to bin: %v", err)
	}
	os.Remove(filepath.Join(inst.BinDir, "pg_evil"))
	os.Chmod(cache, 0o777)
	if err := Check(inst.BinDir); !errors.Is(err, ErrUnsafeDir) {
		t.Fatalf("a cache directory writable by all: %v; want ErrUnsafeDir", err)
	}
	os.Chmod(cache, 0o755)
	if err := Check(filepath.Join(t.TempDir(), "17-linux-x64", "bin")); err == nil {
		t.Fatal("a directory with no install at all was accepted")
	}
}
