package main

import (
	"context"
	"flag"
	"io"
	"strings"

	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/pgserver/docker"
)

// dockerProvider gives in-process commands (scenario files, the demo)
// --docker: this binary links the Docker client, scenario programs do not.
func dockerProvider(image string) pgserver.Provider { return docker.Provider{Image: image} }

// dockerForChild starts the container a scenario program's --docker asks
// for, since the program does not link the Docker client, and passes its
// URL in the environment. stop removes the container.
func dockerForChild(ctx context.Context, args []string) (env []string, stop func(), err error) {
	fs := flag.NewFlagSet("docker", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	on := fs.Bool("docker", false, "")
	image := fs.String("docker-image", "postgres:16", "")
	workers := fs.Int("workers", 0, "")
	// Only these flags matter here; skip every other argument.
	var mine []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(a, "-")
		name, _, hasValue := strings.Cut(name, "=")
		switch name {
		case "docker":
			mine = append(mine, a)
		case "docker-image", "workers":
			mine = append(mine, a)
			if !hasValue && i+1 < len(args) {
				mine = append(mine, args[i+1])
				i++
			}
		}
	}
	if err := fs.Parse(mine); err != nil || !*on {
		return nil, func() {}, nil // the program reports flag errors
	}
	w := *workers
	if w <= 0 {
		w = 4
	}
	srv, err := docker.Provider{Image: *image}.Start(ctx, pgserver.ProviderRequest{MaxConnections: 20 + w*36})
	if err != nil {
		return nil, nil, err
	}
	return []string{cli.DockerServerEnv + "=" + srv.ConnString(srv.MaintenanceDB())}, func() { srv.Close() }, nil
}
