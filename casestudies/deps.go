package casestudies

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// EnsureNode makes sure node and npm are on PATH, installing Debian's
// nodejs and npm with apt-get when they are missing. The error says what
// is missing and why it could not be installed.
func EnsureNode(ctx context.Context) error {
	if haveCommands("node", "npm") {
		return nil
	}
	if err := aptInstall(ctx, "nodejs", "npm"); err != nil {
		return fmt.Errorf("node and npm are needed to run the case studies and could not be installed: %w", err)
	}
	if !haveCommands("node", "npm") {
		return fmt.Errorf("node and npm are still missing after apt-get install nodejs npm")
	}
	return nil
}

func haveCommands(names ...string) bool {
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			return false
		}
	}
	return true
}

var aptMu sync.Mutex
var aptUpdated bool

// aptInstall installs Debian packages, as root or through sudo -n.
func aptInstall(ctx context.Context, pkgs ...string) error {
	aptMu.Lock()
	defer aptMu.Unlock()
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("apt-get is not available; install %s with the machine's package manager", strings.Join(pkgs, " "))
	}
	var prefix []string
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("sudo"); err != nil {
			return fmt.Errorf("installing %s needs root (or sudo)", strings.Join(pkgs, " "))
		}
		prefix = []string{"sudo", "-n"}
	}
	run := func(args ...string) error {
		argv := append(append(append([]string{}, prefix...), "env", "DEBIAN_FRONTEND=noninteractive"), args...)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, tail(out.String(), 2000))
		}
		return nil
	}
	if !aptUpdated {
		if err := run("apt-get", "update", "-qq"); err != nil {
			return err
		}
		aptUpdated = true
	}
	return run(append([]string{"apt-get", "install", "-y", "-qq"}, pkgs...)...)
}

var npmMu sync.Mutex

// NPMInstall runs `npm ci` in dir when its node_modules is missing or was
// not installed from its package-lock.json (npm writes
// node_modules/.package-lock.json on every install).
func NPMInstall(ctx context.Context, dir string) error {
	npmMu.Lock()
	defer npmMu.Unlock()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err != nil {
		return fmt.Errorf("%s has no package-lock.json: %w", dir, err)
	}
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci in %s failed (the npm registry must be reachable): %v\n%s", dir, err, tail(out.String(), 4000))
	}
	return nil
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
