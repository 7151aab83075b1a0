package interleave

import (
	"context"
	"io"

	"github.com/spf13/cobra"
)

// addReplayCommands registers replay and minimize (see replay.go).
func addReplayCommands(ctx context.Context, root *cobra.Command, stdout io.Writer, scenarios []Scenario, code *int) {
}
