//go:build !windows

package docker

import (
	"context"
	"fmt"
	"net"
)

// dialPipe: named pipes (npipe://) are how a Docker engine listens on
// Windows only.
func dialPipe(_ context.Context, name string) (net.Conn, error) {
	return nil, fmt.Errorf("npipe:// (%s) is a Windows named pipe; on this system set DOCKER_HOST to unix:// or tcp://", name)
}
