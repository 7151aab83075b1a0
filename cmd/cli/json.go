package cli

import "github.com/pginterleave/interleave/engine"

// The --json outputs. Each carries schemaVersion; docs/json/ has their JSON
// Schemas, which the tests validate outputs against.

// errorJSON is what --json prints when a command cannot finish.
type errorJSON struct {
	SchemaVersion int    `json:"schemaVersion"`
	Error         string `json:"error"`
	ExitCode      int    `json:"exitCode"`
}

// ReplayJSON is the machine-readable result of a replay.
type ReplayJSON struct {
	SchemaVersion int      `json:"schemaVersion"`
	Scenario      string   `json:"scenario"`
	Outcome       string   `json:"outcome"`
	ExitCode      int      `json:"exitCode"`
	Message       string   `json:"message,omitempty"`
	Guided        bool     `json:"guided"`
	SameFailure   bool     `json:"sameFailure"`
	Followed      int      `json:"followed"`
	Of            int      `json:"of"`
	Commands      int      `json:"commands"`
	Attempts      int      `json:"attempts"`
	Differences   []string `json:"differences,omitempty"`
	Artifact      string   `json:"artifact,omitempty"`
}

func replayJSON(r *engine.ReplayResult) ReplayJSON {
	return ReplayJSON{SchemaVersion: 1, Scenario: r.Scenario, Outcome: string(r.Outcome), ExitCode: r.ExitCode(), Message: Flagged(r.Message),
		Guided: r.Guided, SameFailure: r.SameFailure, Followed: r.Followed, Of: r.Of, Commands: r.Commands, Attempts: r.Attempts,
		Differences: r.Differences, Artifact: r.Saved}
}

// MinimizeJSON is the machine-readable result of a minimization.
type MinimizeJSON struct {
	SchemaVersion  int      `json:"schemaVersion"`
	Scenario       string   `json:"scenario"`
	Outcome        string   `json:"outcome"`
	ExitCode       int      `json:"exitCode"`
	Message        string   `json:"message,omitempty"`
	ChoicesBefore  int      `json:"choicesBefore"`
	ChoicesAfter   int      `json:"choicesAfter"`
	Attempts       int      `json:"attempts"`
	LocallyMinimal bool     `json:"locallyMinimal"`
	StopReason     string   `json:"stopReason,omitempty"`
	Differences    []string `json:"differences,omitempty"`
	Artifact       string   `json:"artifact,omitempty"`
}

func minimizeJSON(r *engine.MinimizeResult) MinimizeJSON {
	return MinimizeJSON{SchemaVersion: 1, Scenario: r.Scenario, Outcome: string(r.Outcome), ExitCode: r.ExitCode(), Message: Flagged(r.Message),
		ChoicesBefore: r.Before, ChoicesAfter: r.After, Attempts: r.Attempts, LocallyMinimal: r.LocallyMinimal,
		StopReason: r.StopReason, Differences: r.Differences, Artifact: r.Saved}
}
