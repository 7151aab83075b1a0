package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/explain"
	"github.com/pginterleave/interleave/search"
)

// SummaryFile is the machine-readable summary of a search (--json,
// --summary FILE): what `interleave merge` combines across shards.
type SummaryFile struct {
	SchemaVersion int    `json:"schemaVersion"`
	Scenario      string `json:"scenario"`
	Outcome       string `json:"outcome"`
	ExitCode      int    `json:"exitCode"`
	Message       string `json:"message,omitempty"`
	Strategy      string `json:"strategy"`
	Seed          int64  `json:"seed,omitempty"`
	Shard         int    `json:"shard,omitempty"`
	Shards        int    `json:"shards,omitempty"`
	Attempted     int    `json:"attempted"`
	Completed     int    `json:"completed"`
	Violations    int    `json:"violations"`
	Inconclusive  int    `json:"inconclusive"`
	Diverged      int    `json:"diverged"`
	// VictimSequences counts deadlock victim choices the search could not
	// explore (search.Summary.VictimSequences).
	VictimSequences int `json:"victimSequences,omitempty"`
	// Reruns counts extra runs of plans not followed the first time
	// (search.Summary.Reruns).
	Reruns        int    `json:"reruns,omitempty"`
	Pending       int    `json:"pending"`
	PrunedByDepth int    `json:"prunedByDepth"`
	PrunedByBytes int    `json:"prunedByBytes"`
	MaxDepth      int    `json:"maxDepth"`
	StopReason    string `json:"stopReason"`
	// StopError is the harness error that stopped the search, when one did.
	StopError     string `json:"stopError,omitempty"`
	Exhausted     bool   `json:"exhausted"`
	ElapsedMillis int64  `json:"elapsedMillis"`
	// Reduction is "por" or "none"; under por, Alternatives is how many
	// alternative orders the unreduced search would have queued and
	// Skipped how many of them were skipped as equivalent.
	Reduction    string `json:"reduction"`
	Alternatives int    `json:"alternatives"`
	Skipped      int    `json:"skippedAsEquivalent"`
	// ReductionCheck is the reduced search's check of itself.
	ReductionCheck *ReductionCheck `json:"reductionCheck,omitempty"`
	// FirstFailure locates the earliest failure in the exploration order.
	FirstFailure *FailureRef `json:"firstFailure,omitempty"`

	// Faults names the fault kinds searched ("lost-reply,reset"), and
	// FaultAttempts counts the attempts that injected one (faults.go).
	Faults        string `json:"faults,omitempty"`
	FaultAttempts int    `json:"faultAttempts,omitempty"`
}

// ReductionCheck is what the check of a reduced search found: how many
// skipped orders it could sample from and ran, and what they did.
type ReductionCheck struct {
	// LockCorrections counts units made global because PostgreSQL held a
	// relation lock for them outside their classified footprint.
	LockCorrections int    `json:"lockCorrections"`
	Skipped         int    `json:"skipped"`
	Sampled         int    `json:"sampled"`
	Random          int    `json:"random"`
	NewBehaviours   int    `json:"newBehaviours"`
	Unrepeatable    int    `json:"unrepeatable"`
	First           string `json:"first,omitempty"`
}

// FailureRef names a failing attempt, the order of its commands and where
// its artifact was saved.
type FailureRef struct {
	// Path is the attempt's place in the search: the child indices from
	// the first schedule, [] for the first schedule itself.
	Path     []int32 `json:"path"`
	Kind     string  `json:"kind"`
	Message  string  `json:"message"`
	Artifact string  `json:"artifact,omitempty"`
	// Order is the failing order: its executing commands as released,
	// what the text summary prints under "The order that failed".
	Order []OrderStep `json:"order,omitempty"`
	// Anomaly is the failure named from the order's dependencies, the line
	// the text summary prints under the order (the artifact keeps it too);
	// AnomalyError says why it could not be named.
	Anomaly      *AnomalyJSON `json:"anomaly,omitempty"`
	AnomalyError string       `json:"anomalyError,omitempty"`
}

// AnomalyJSON is a failure's anomaly in a summary: explain's anomaly and
// the dependency cycle that forms it (empty: none), and the critical pair
// when the search ran reversals; the fix class needs `interleave explain`,
// which runs the order again at stronger isolation levels.
type AnomalyJSON struct {
	explain.Anomaly
	Cycle []explain.Edge `json:"cycle"`
	// CriticalPair is the pair of commands whose reversal passed, when the
	// search ran reversals (Options.Output.Reversals).
	CriticalPair *explain.Pair `json:"criticalPair,omitempty"`
}

// Summarize returns the machine-readable summary of an Explore result.
func Summarize(r *engine.Result) *SummaryFile {
	s := r.Summary
	f := &SummaryFile{SchemaVersion: 1, Scenario: r.Scenario, Outcome: string(r.Outcome), ExitCode: r.ExitCode(), Message: Flagged(r.Message)}
	if s == nil {
		return f
	}
	f.Strategy, f.Seed, f.Shard, f.Shards = s.Strategy.String(), r.Seed, r.Shard, r.Shards
	f.Attempted, f.Completed, f.Violations, f.Inconclusive, f.Diverged = s.Attempted, s.Completed, s.Failures, s.Inconclusive, s.Diverged
	f.VictimSequences = s.VictimSequences
	f.Reruns = s.Reruns
	f.Pending, f.PrunedByDepth, f.PrunedByBytes, f.MaxDepth = s.Pending, s.PrunedByDepth, s.PrunedByBytes, s.MaxDepth
	f.StopReason, f.Exhausted, f.ElapsedMillis = s.StopReason, s.Exhausted(), s.Elapsed.Milliseconds()
	if s.StopErr != nil {
		f.StopError = s.StopErr.Error()
	}
	f.Reduction = s.Reduction.String()
	if s.Reduction == search.POR {
		f.Alternatives, f.Skipped = s.Alternatives, s.Alternatives-s.Queued
		c := s.Check
		f.ReductionCheck = &ReductionCheck{LockCorrections: s.LockCorrections, Skipped: c.Skipped, Sampled: c.Sampled, Random: c.Random, NewBehaviours: c.NewBehaviours, Unrepeatable: c.Unrepeatable, First: c.First}
	}
	if r.Outcome.Failed() && r.Artifact != nil {
		path := s.FirstFailurePath
		if path == nil {
			path = []int32{} // the first schedule itself: [] in JSON, not null
		}
		f.FirstFailure = &FailureRef{Path: path, Kind: string(r.Outcome), Message: Flagged(r.Message), Artifact: r.Saved, Order: failingOrder(r.Artifact), AnomalyError: r.AnomalyError}
		if x := r.Artifact.Explanation; x != nil {
			f.FirstFailure.Anomaly = &AnomalyJSON{Anomaly: x.Anomaly, Cycle: x.Cycle, CriticalPair: x.CriticalPair}
		}
	}
	summarizeFaults(f, r)
	return f
}

// ParseShard reads "K/N" (1 <= K <= N).
func ParseShard(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		k, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("--shard wants K/N with 1 <= K <= N (for example 2/4; a Kubernetes Indexed Job passes $((JOB_COMPLETION_INDEX+1))/N), not %q", s)
	}
	return k, n, nil
}

// Merged is the combination of shard summaries.
type Merged struct {
	Summary  SummaryFile
	Missing  []int // shard numbers with no summary
	Artifact string
}

// MergeSummaries combines the summaries of the shards of one search: counts
// add up, the search is exhausted only when every shard 1..N reported and
// exhausted its part, and the first failure in exploration order wins.
func MergeSummaries(paths []string) (*Merged, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("merge needs the summary files of the shards")
	}
	var files []*SummaryFile
	dirs := map[*SummaryFile]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var f SummaryFile
		if err := json.Unmarshal(data, &f); err != nil || f.SchemaVersion != 1 {
			return nil, fmt.Errorf("%s is not an Interleave summary (written with --summary or --json)", p)
		}
		files = append(files, &f)
		dirs[&f] = filepath.Dir(p)
	}
	m := &Merged{}
	t := &m.Summary
	*t = SummaryFile{SchemaVersion: 1, Scenario: files[0].Scenario, Strategy: files[0].Strategy, Seed: files[0].Seed, Shards: files[0].Shards, Exhausted: true}
	seen := map[int]bool{}
	worst := engine.ExitPass
	for _, f := range files {
		if f.Scenario != t.Scenario || f.Shards != t.Shards || f.Strategy != t.Strategy || f.Seed != t.Seed {
			return nil, fmt.Errorf("the summaries are not shards of one search (scenario, strategy, seed or shard count differ)")
		}
		if seen[f.Shard] {
			return nil, fmt.Errorf("shard %d/%d appears twice", f.Shard, f.Shards)
		}
		seen[f.Shard] = true
		t.Attempted += f.Attempted
		t.Completed += f.Completed
		t.Violations += f.Violations
		t.Inconclusive += f.Inconclusive
		t.Diverged += f.Diverged
		t.VictimSequences += f.VictimSequences
		t.Reruns += f.Reruns
		t.Pending += f.Pending
		t.PrunedByDepth += f.PrunedByDepth
		t.PrunedByBytes += f.PrunedByBytes
		mergeFaults(t, f)
		if f.MaxDepth > t.MaxDepth {
			t.MaxDepth = f.MaxDepth
		}
		if f.ElapsedMillis > t.ElapsedMillis {
			t.ElapsedMillis = f.ElapsedMillis
		}
		t.Exhausted = t.Exhausted && f.Exhausted
		worst = worse(worst, f.ExitCode)
		if ff := f.FirstFailure; ff != nil && (t.FirstFailure == nil || pathBefore(ff.Path, t.FirstFailure.Path)) {
			c := *ff
			if c.Artifact != "" && !filepath.IsAbs(c.Artifact) {
				c.Artifact = filepath.Join(dirs[f], c.Artifact)
			}
			t.FirstFailure = &c
		}
	}
	n := t.Shards
	if n == 0 {
		n = 1
	}
	for k := 1; k <= n; k++ {
		if !seen[k] && !(n == 1 && seen[0]) {
			m.Missing = append(m.Missing, k)
		}
	}
	sort.Ints(m.Missing)
	switch {
	case t.FirstFailure != nil:
		t.Outcome, t.Message = t.FirstFailure.Kind, t.FirstFailure.Message
		t.ExitCode = engine.Outcome(t.Outcome).ExitCode()
		m.Artifact = t.FirstFailure.Artifact
	case worst == engine.ExitError:
		t.Outcome, t.ExitCode, t.Message = string(engine.OutcomeHarnessError), engine.ExitError, "a shard stopped with an error"
	case len(m.Missing) > 0 || !t.Exhausted || t.Inconclusive > 0 || t.Diverged > 0 || t.VictimSequences > 0:
		t.Outcome, t.ExitCode = string(engine.OutcomeInconclusive), engine.ExitInconclusive
		t.Message = "not every order was explored"
		if len(m.Missing) > 0 {
			t.Message = fmt.Sprintf("shards %v did not report", m.Missing)
		}
	default:
		t.Outcome, t.ExitCode = string(engine.OutcomePass), engine.ExitPass
	}
	t.StopReason = "merged"
	return m, nil
}

// pathBefore orders exploration-tree paths: fewer choices first, then by
// child index (the breadth-first order every shard shares).
func pathBefore(a, b []int32) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// CopyArtifact validates the artifact at src and writes it to dst.
func CopyArtifact(src, dst string, force bool) error {
	a, err := artifact.Read(src)
	if err != nil {
		return err
	}
	return artifact.Write(dst, a, force)
}

// worse picks the exit code that matters more to CI.
func worse(a, b int) int {
	rank := map[int]int{engine.ExitPass: 0, engine.ExitInconclusive: 1, engine.ExitIncompatible: 2, engine.ExitViolation: 3, engine.ExitError: 4}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
