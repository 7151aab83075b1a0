package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// programCommand builds the scenario program named by the first argument and
// runs it with the subcommand and the remaining arguments.
func programCommand(name, use, short string, positional int) *cobra.Command {
	return &cobra.Command{
		Use:                use,
		Short:              short,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
				fmt.Fprintf(cmd.OutOrStdout(), "Usage: interleave %s\n\n%s.\nDIR is a main package that calls interleave.Main; the flags are the program's own\n(see: interleave %s DIR --help).\n", use, short, name)
				if len(args) == 0 {
					return exitCode(2)
				}
				return nil
			}
			if len(args) < positional {
				return fmt.Errorf("interleave %s needs %d arguments: %s", name, positional, use)
			}
			bin, cleanup, err := buildProgram(args[0])
			if err != nil {
				return err
			}
			defer cleanup()
			childArgs := append([]string{name}, args[1:]...)
			return exitCode(runChild(bin, childArgs, args[0]))
		},
	}
}

// buildProgram compiles the main package in dir into a temporary directory.
func buildProgram(dir string) (string, func(), error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", nil, fmt.Errorf("scenario program %s: %w", dir, err)
	}
	if !st.IsDir() {
		return "", nil, fmt.Errorf("%s is not a directory; give the directory of a main package that calls interleave.Main", dir)
	}
	tmp, err := os.MkdirTemp("", "interleave-build-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	bin := filepath.Join(tmp, "scenario")
	abs, _ := filepath.Abs(dir)
	cmd := exec.Command("go", "build", "-C", abs, "-o", bin, ".")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		cleanup()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", nil, fmt.Errorf("building the scenario program in %s failed (see the compiler output above)", dir)
		}
		return "", nil, fmt.Errorf("run the go command to build %s: %w; is Go installed and on PATH?", dir, err)
	}
	return bin, cleanup, nil
}

// runChild runs the scenario program in its own process group and forwards
// SIGINT/SIGTERM to it exactly once, so that it cleans up before exiting.
func runChild(bin string, args []string, dir string) int {
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	abs, _ := filepath.Abs(dir)
	cmd.Env = append(os.Environ(), "INTERLEAVE_PROGRAM_DIR="+abs)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "interleave: start the scenario program: %v\n", err)
		return 2
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	fmt.Fprintf(os.Stderr, "interleave: %s: %v\n", strings.Join(args, " "), err)
	return 2
}
