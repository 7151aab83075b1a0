package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/pgserver"
)

// nodeProcessesIn lists the pids of running processes whose command line
// names a file in dir (the scenario's Node hosts and anything they run
// with it), from /proc.
func nodeProcessesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("list processes: %v", err)
	}
	var pids []string
	for _, e := range entries {
		if strings.Trim(e.Name(), "0123456789") != "" {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(string(cmdline), dir+string(filepath.Separator)) {
			stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if strings.Contains(string(stat), ") Z ") { // a zombie is gone but for its parent's wait
				continue
			}
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// serverURL is a URL of the shared test server for --database-url: the CLI
// then creates and drops its own databases on it instead of starting a
// server per command.
func serverURL(t *testing.T, srv pgserver.Server) string {
	t.Helper()
	if srv == nil {
		t.Fatal("no shared test server (TestMain starts one)")
	}
	return srv.ConnString(srv.MaintenanceDB())
}
