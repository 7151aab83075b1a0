package casestudies

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/search"
	"github.com/pginterleave/interleave/supervise"
)

// Config are the numbers of a measurement; DefaultConfig is the one
// docs/case-studies.md reports.
type Config struct {
	FirstBudget int // attempts allowed to find the first failure
	Sweep       int // schedules explored with KeepGoing
	Replays     int // exact replays of the first failure
	Trials      int // baseline trials without Interleave
	Overlaps    []string
}

// DefaultConfig is what docs/case-studies.md reports.
var DefaultConfig = Config{FirstBudget: 100, Sweep: 100, Replays: 20, Trials: 100, Overlaps: []string{"", "pairs"}}

// Search is one Explore call.
type Search struct {
	Overlap      string
	Budget       int
	KeepGoing    bool
	Outcome      interleave.Outcome
	Message      string
	Attempted    int
	Violations   int
	Inconclusive int
	Diverged     int
	Retries      int
	Exhausted    bool
	Pending      int // prefixes left unexplored
	StopReason   string
	StopErr      string // the harness error that stopped the search, if one did
	FirstFailure int    // 1-based dispatch number of the first failing schedule; 0: none
	Elapsed      time.Duration
	Artifact     *artifact.Artifact `json:"-"`
	Order        []string           // the failing schedule: actor: SQL, in release order
	Units        int                // executing units released in the failing schedule
	// Messages counts the invariant's failure messages over every attempt
	// of the search (pair retries included).
	Messages map[string]int
}

// PerAttempt is the mean wall time of one attempt.
func (s *Search) PerAttempt() time.Duration {
	if s == nil || s.Attempted == 0 {
		return 0
	}
	return s.Elapsed / time.Duration(s.Attempted)
}

// Replays are repeated replays of one recording.
type Replays struct {
	Guided     bool
	N          int
	Reproduced int            // the same failure as recorded
	Outcomes   map[string]int // outcome kind -> count
	Elapsed    time.Duration
}

// Minimized is a Minimize result.
type Minimized struct {
	Outcome        interleave.Outcome
	Message        string
	Before, After  int
	Attempts       int
	LocallyMinimal bool
	StopReason     string
	Elapsed        time.Duration
	Order          []string
}

// Baseline is ordinary concurrency: both actors started together against
// the server, without Interleave.
type Baseline struct {
	Trials   int
	Failures int
	Messages map[string]int // failure message -> count
	Elapsed  time.Duration
}

// PerTrial is the mean wall time of one trial.
func (b *Baseline) PerTrial() time.Duration {
	if b == nil || b.Trials == 0 {
		return 0
	}
	return b.Elapsed / time.Duration(b.Trials)
}

// VersionReport is every measurement of one version.
type VersionReport struct {
	Version  Version
	First    map[string]*Search // overlap -> search to the first failure
	Sweep    map[string]*Search // overlap -> Sweep schedules, keep going
	Replays  map[string]*Replays
	Minimize map[string]*Minimized
	Baseline *Baseline
}

// CaseReport is every measurement of one case.
type CaseReport struct {
	Case   *Case `json:"-"`
	Name   string
	Before *VersionReport
	After  *VersionReport
	// GuidedAfter replays Before's first (one-at-a-time) failure against
	// After, following the recorded order as far as the new code allows.
	GuidedAfter *Replays
	Started     time.Time
	Elapsed     time.Duration
}

// Measurer runs measurements on one server.
type Measurer struct {
	Root   string // this package's directory
	Server pgserver.Server
	Config Config
	// Workers is the number of attempts run at once (0: 1, so that attempt
	// numbers and wall times are those of a sequential search).
	Workers int
	Log     func(format string, args ...any)
}

func (m *Measurer) logf(format string, args ...any) {
	if m.Log != nil {
		m.Log(format, args...)
	}
}

// Options are the Interleave options every measurement uses: m.Workers,
// the shared server, the version's fingerprinted files, quiet output.
func (m *Measurer) Options(c *Case, v Version, overlap string) interleave.Options {
	workers := m.Workers
	if workers <= 0 {
		workers = 1
	}
	return interleave.Options{Server: interleave.ServerOptions{Use: m.Server}, Search: interleave.SearchOptions{Workers: workers, Overlap: search.Overlap(overlap)}, Source: interleave.SourceOptions{Files: c.SourceFiles(m.Root, v), Root: m.Root}}
}

// Explore runs one search.
func (m *Measurer) Explore(ctx context.Context, c *Case, v Version, overlap string, budget int, keepGoing bool) (*Search, error) {
	o := m.Options(c, v, overlap)
	o.Search.MaxAttempts, o.Search.KeepGoing = budget, keepGoing
	sc := c.Scenario(m.Root, v)
	var mu sync.Mutex
	messages := map[string]int{}
	judge := sc.Invariant
	sc.Invariant = func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
		err := judge(ctx, db, results)
		if err != nil {
			mu.Lock()
			messages[err.Error()]++
			mu.Unlock()
		}
		return err
	}
	res, err := interleave.Explore(ctx, sc, o)
	if err != nil {
		return nil, err
	}
	s := &Search{Overlap: overlap, Budget: budget, KeepGoing: keepGoing, Outcome: res.Outcome, Message: res.Message, Artifact: res.Artifact, Messages: messages}
	if sum := res.Summary; sum != nil {
		s.Attempted, s.Violations, s.Inconclusive, s.Diverged, s.Retries = sum.Attempted, sum.Failures, sum.Inconclusive, sum.Diverged, sum.Retries
		s.Exhausted, s.StopReason, s.Elapsed, s.Pending = sum.Exhausted(), sum.StopReason, sum.Elapsed, sum.Pending
		if sum.StopErr != nil {
			s.StopErr = sum.StopErr.Error()
		}
		if sum.FirstFailure >= 0 && sum.Failures > 0 {
			s.FirstFailure = sum.FirstFailure + 1
		}
	}
	if res.Artifact != nil && (res.Outcome == interleave.OutcomeViolation || res.Outcome == interleave.OutcomeActorError) {
		s.Order, s.Units = releaseOrder(res.Artifact)
	}
	return s, nil
}

// releaseOrder lists the executing units of a in release order, pairs
// marked.
func releaseOrder(a *artifact.Artifact) ([]string, int) {
	units := map[[3]any]artifact.Unit{}
	for _, u := range a.Units {
		units[[3]any{u.Actor, u.Conn, u.Unit}] = u
	}
	var out []string
	n := 0
	for _, d := range a.Schedule.Decisions {
		var parts []string
		for _, r := range d.Release {
			u := units[[3]any{r.Actor, r.Conn, r.Unit}]
			if u.Prepare {
				continue
			}
			n++
			sql := strings.Join(u.SQL, "; ")
			sql = strings.Join(strings.Fields(sql), " ")
			if len(sql) > 160 {
				sql = sql[:157] + "..."
			}
			line := fmt.Sprintf("%s: %s", r.Actor, sql)
			if u.SQLState != "" {
				line += fmt.Sprintf("  -- ERROR %s", u.SQLState)
			}
			if len(u.LockWaits) > 0 {
				line += "  -- waited on a lock"
			}
			parts = append(parts, line)
		}
		if len(parts) == 0 {
			continue
		}
		prefix := ""
		if d.Choice {
			prefix = "* "
		}
		if len(parts) == 2 {
			out = append(out, prefix+"PAIR { "+parts[0]+" | "+parts[1]+" }")
		} else {
			out = append(out, prefix+parts[0])
		}
	}
	return out, n
}

// Replay replays rec n times (exact, or guided against version v) and
// counts how often the recorded failure recurs.
func (m *Measurer) Replay(ctx context.Context, c *Case, v Version, overlap string, rec *artifact.Artifact, n int, guided bool) (*Replays, error) {
	r := &Replays{Guided: guided, N: n, Outcomes: map[string]int{}}
	start := time.Now()
	for i := 0; i < n; i++ {
		res, err := interleave.Replay(ctx, c.Scenario(m.Root, v), rec, interleave.ReplayOptions{Options: m.Options(c, v, overlap), Guided: guided})
		if err != nil {
			return nil, err
		}
		r.Outcomes[string(res.Outcome)]++
		if res.SameFailure {
			r.Reproduced++
		}
		if res.Outcome == interleave.OutcomeIncompatible && i == 0 {
			m.logf("  replay incompatible: %s", strings.Join(res.Differences, "; "))
		}
	}
	r.Elapsed = time.Since(start)
	return r, nil
}

// Minimize minimizes rec.
func (m *Measurer) Minimize(ctx context.Context, c *Case, v Version, overlap string, rec *artifact.Artifact) (*Minimized, error) {
	start := time.Now()
	res, err := interleave.Minimize(ctx, c.Scenario(m.Root, v), rec, interleave.MinimizeOptions{Options: m.Options(c, v, overlap), MaxAttempts: 200})
	if err != nil {
		return nil, err
	}
	out := &Minimized{Outcome: res.Outcome, Message: res.Message, Before: res.Before, After: res.After, Attempts: res.Attempts,
		LocallyMinimal: res.LocallyMinimal, StopReason: res.StopReason, Elapsed: time.Since(start)}
	if res.Outcome == interleave.OutcomeIncompatible {
		out.StopReason = res.Message
	}
	if res.Artifact != nil && res.Outcome != interleave.OutcomeIncompatible {
		out.Order, _ = releaseOrder(res.Artifact)
	}
	return out, nil
}

// Baseline runs trials of ordinary concurrency: a fresh schema with the
// case's setup, both actor processes started back to back against the
// server directly, the same invariant on their results.
func (m *Measurer) Baseline(ctx context.Context, c *Case, v Version, trials int) (*Baseline, error) {
	db, err := m.Server.CreateDatabase(ctx)
	if err != nil {
		return nil, err
	}
	defer m.Server.DropDatabase(context.Background(), db)
	direct, err := DirectURL(m.Server, db)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, m.Server.ConnString(db))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	b := &Baseline{Messages: map[string]int{}}
	sc := c.Scenario(m.Root, v)
	for i := 0; i < trials; i++ {
		if _, err := conn.Exec(ctx, "DROP SCHEMA public CASCADE; CREATE SCHEMA public"); err != nil {
			return nil, err
		}
		if c.Setup != "" {
			if _, err := conn.Exec(ctx, c.Setup); err != nil {
				return nil, err
			}
		}
		start := time.Now()
		results := runTogether(ctx, c, m.Root, v, direct)
		b.Elapsed += time.Since(start)
		b.Trials++
		if err := sc.Invariant(ctx, conn, results); err != nil {
			b.Failures++
			b.Messages[err.Error()]++
		}
	}
	return b, nil
}

// DirectURL is a TCP connection string to db on the server itself, as the
// actors' proxies would reach it.
func DirectURL(s pgserver.Server, db string) (string, error) {
	u, err := url.Parse(s.ConnString(db))
	if err != nil {
		return "", err
	}
	port := u.Query().Get("port")
	if port == "" {
		port = u.Port()
	}
	host := u.Hostname()
	if host == "" || strings.HasPrefix(u.Query().Get("host"), "/") {
		host = "127.0.0.1"
	}
	d := url.URL{Scheme: "postgres", Host: host + ":" + port, Path: "/" + db, RawQuery: "sslmode=disable"}
	if p := s.Password(); p != "" {
		d.User = url.UserPassword(s.User(), p)
	} else {
		d.User = url.User(s.User())
	}
	return d.String(), nil
}

// runTogether starts both actors of c at once against connString and
// collects their results as Interleave would.
func runTogether(ctx context.Context, c *Case, root string, v Version, connString string) []interleave.ActorResult {
	results := make([]interleave.ActorResult, len(actorNames))
	cmds := make([]*exec.Cmd, len(actorNames))
	outs := make([]*bytes.Buffer, len(actorNames))
	errs := make([]*bytes.Buffer, len(actorNames))
	u, _ := url.Parse(connString)
	for i, name := range actorNames {
		cmd := exec.CommandContext(ctx, "node", filepath.Join(root, c.Dir, c.Script))
		cmd.Dir = filepath.Join(root, v.Dir)
		cmd.Env = append(cleanEnv(),
			"DATABASE_URL="+connString, "PGHOST="+u.Hostname(), "PGPORT="+u.Port(),
			"PGDATABASE="+strings.TrimPrefix(u.Path, "/"), "PGUSER="+u.User.Username(), "PGSSLMODE=disable",
			"INTERLEAVE_ACTOR="+name)
		supervise.Prepare(cmd)
		outs[i], errs[i] = &bytes.Buffer{}, &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], errs[i]
		cmds[i] = cmd
		results[i].Actor = name
	}
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		if err := supervise.Start(cmd); err != nil {
			results[i].Err = err
			continue
		}
		wg.Add(1)
		go func(i int, cmd *exec.Cmd) {
			defer wg.Done()
			if err := supervise.Wait(cmd); err != nil {
				results[i].Err = fmt.Errorf("node exited: %v: %s", err, tail(errs[i].String(), 500))
			}
		}(i, cmd)
	}
	wg.Wait()
	for i := range results {
		if results[i].Err == nil {
			results[i].Value = []byte(bytes.TrimSpace(outs[i].Bytes()))
		}
	}
	return results
}

func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PG") || strings.HasSuffix(k, "DATABASE_URL") || k == "INTERLEAVE_ACTOR" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// Prepare installs both versions' npm projects.
func (m *Measurer) Prepare(ctx context.Context, c *Case) error {
	if err := EnsureNode(ctx); err != nil {
		return err
	}
	for _, v := range []Version{c.Before, c.After} {
		if err := NPMInstall(ctx, filepath.Join(m.Root, v.Dir)); err != nil {
			return err
		}
	}
	return nil
}

// MeasureVersion runs every measurement of one version.
func (m *Measurer) MeasureVersion(ctx context.Context, c *Case, v Version) (*VersionReport, error) {
	cfg := m.Config
	r := &VersionReport{Version: v, First: map[string]*Search{}, Sweep: map[string]*Search{}, Replays: map[string]*Replays{}, Minimize: map[string]*Minimized{}}
	for _, ov := range cfg.Overlaps {
		mode := overlapName(ov)
		m.logf("%s %s [%s]: search for the first failure (budget %d)", c.Library, v.Label, mode, cfg.FirstBudget)
		first, err := m.Explore(ctx, c, v, ov, cfg.FirstBudget, false)
		if err != nil {
			return nil, fmt.Errorf("%s %s first search: %w", c.Library, v.Label, err)
		}
		r.First[ov] = first
		m.logf("  %s after %d attempts in %v: %s", first.Outcome, first.Attempted, first.Elapsed.Round(time.Millisecond), first.Message)
		if failed(first.Outcome) && first.Artifact != nil {
			m.logf("%s %s [%s]: %d exact replays", c.Library, v.Label, mode, cfg.Replays)
			if r.Replays[ov], err = m.Replay(ctx, c, v, ov, first.Artifact, cfg.Replays, false); err != nil {
				return nil, err
			}
			m.logf("  reproduced %d of %d", r.Replays[ov].Reproduced, r.Replays[ov].N)
			m.logf("%s %s [%s]: minimize", c.Library, v.Label, mode)
			if r.Minimize[ov], err = m.Minimize(ctx, c, v, ov, first.Artifact); err != nil {
				return nil, err
			}
			mm := r.Minimize[ov]
			m.logf("  %d -> %d choices in %d attempts, locally minimal %v %s", mm.Before, mm.After, mm.Attempts, mm.LocallyMinimal, mm.StopReason)
		}
		if !failed(first.Outcome) && first.Attempted >= cfg.Sweep && cfg.FirstBudget == cfg.Sweep {
			r.Sweep[ov] = first // the same search: no failure, same budget
			continue
		}
		if !failed(first.Outcome) && first.Exhausted {
			r.Sweep[ov] = first // every order explored in fewer attempts
			continue
		}
		m.logf("%s %s [%s]: explore %d schedules, keep going", c.Library, v.Label, mode, cfg.Sweep)
		sweep, err := m.Explore(ctx, c, v, ov, cfg.Sweep, true)
		if err != nil {
			return nil, err
		}
		r.Sweep[ov] = sweep
		m.logf("  %d violations in %d attempts (%v)", sweep.Violations, sweep.Attempted, sweep.Elapsed.Round(time.Millisecond))
	}
	m.logf("%s %s: baseline, %d trials without Interleave", c.Library, v.Label, cfg.Trials)
	b, err := m.Baseline(ctx, c, v, cfg.Trials)
	if err != nil {
		return nil, err
	}
	r.Baseline = b
	m.logf("  %d of %d trials failed (%v per trial)", b.Failures, b.Trials, b.PerTrial().Round(time.Millisecond))
	return r, nil
}

// MeasureCase measures both versions and the guided replay of the bug's
// recording against the fix.
func (m *Measurer) MeasureCase(ctx context.Context, c *Case) (*CaseReport, error) {
	if err := m.Prepare(ctx, c); err != nil {
		return nil, err
	}
	rep := &CaseReport{Case: c, Name: c.Name, Started: time.Now()}
	var err error
	if rep.Before, err = m.MeasureVersion(ctx, c, c.Before); err != nil {
		return nil, err
	}
	if rep.After, err = m.MeasureVersion(ctx, c, c.After); err != nil {
		return nil, err
	}
	if f := rep.Before.First[""]; f != nil && failed(f.Outcome) && f.Artifact != nil {
		m.logf("%s: %d guided replays of the %s failure against %s", c.Library, m.Config.Replays, c.Before.Label, c.After.Label)
		if rep.GuidedAfter, err = m.Replay(ctx, c, c.After, "", f.Artifact, m.Config.Replays, true); err != nil {
			return nil, err
		}
	}
	rep.Elapsed = time.Since(rep.Started)
	return rep, nil
}

func failed(o interleave.Outcome) bool {
	return o == interleave.OutcomeViolation || o == interleave.OutcomeActorError
}

func overlapName(ov string) string {
	if ov == "pairs" {
		return "overlap pairs"
	}
	return "one at a time"
}

// Markdown writes the report's tables.
func (r *CaseReport) Markdown(w io.Writer) {
	c := r.Case
	fmt.Fprintf(w, "## %s (%s %s vs %s)\n\n", c.Name, c.Library, c.Before.Label, c.After.Label)
	fmt.Fprintf(w, "Measured %s, %v in all.\n\n", r.Started.UTC().Format(time.RFC3339), r.Elapsed.Round(time.Second))
	fmt.Fprintf(w, "| measurement | mode | %s %s (bug) | %s %s (fix) |\n|---|---|---|---|\n", c.Library, c.Before.Label, c.Library, c.After.Label)
	row := func(what, mode string, f func(v *VersionReport) string) {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", what, mode, f(r.Before), f(r.After))
	}
	for _, ov := range []string{"", "pairs"} {
		mode := overlapName(ov)
		if r.Before.First[ov] == nil {
			continue
		}
		row("attempts to the first failure", mode, func(v *VersionReport) string {
			s := v.First[ov]
			if s == nil {
				return "-"
			}
			if failed(s.Outcome) {
				return fmt.Sprintf("%d (%s; %v)", s.Attempted, s.Outcome, s.Elapsed.Round(time.Millisecond))
			}
			if s.Exhausted {
				return fmt.Sprintf("none: every order explored in %d attempts (%v)", s.Attempted, s.Elapsed.Round(time.Millisecond))
			}
			return fmt.Sprintf("none in %d attempts (budget; %d prefixes not explored; %v)", s.Attempted, s.Pending, s.Elapsed.Round(time.Millisecond))
		})
		row("units released in the failing schedule", mode, func(v *VersionReport) string {
			if s := v.First[ov]; s != nil && failed(s.Outcome) {
				return fmt.Sprint(s.Units)
			}
			return "-"
		})
		row(fmt.Sprintf("exact replays that reproduce (of %d)", r.maxReplays()), mode, func(v *VersionReport) string {
			rp := v.Replays[ov]
			if rp == nil {
				return "-"
			}
			return fmt.Sprintf("%d of %d %s", rp.Reproduced, rp.N, outcomes(rp.Outcomes))
		})
		row("minimize: choices before -> after (attempts)", mode, func(v *VersionReport) string {
			mm := v.Minimize[ov]
			if mm == nil {
				return "-"
			}
			if mm.Outcome == interleave.OutcomeIncompatible {
				return "not minimized: " + mm.StopReason
			}
			lm := "locally minimal"
			if !mm.LocallyMinimal {
				lm = "not proven locally minimal: " + mm.StopReason
			}
			return fmt.Sprintf("%d -> %d (%d attempts; %s)", mm.Before, mm.After, mm.Attempts, lm)
		})
		row("explored schedules: violations", mode, func(v *VersionReport) string {
			s := v.Sweep[ov]
			if s == nil {
				return "-"
			}
			extra := ""
			if s.Exhausted {
				extra = ", every order explored"
			} else if s.Pending > 0 {
				extra = fmt.Sprintf(", budget spent with %d prefixes pending", s.Pending)
			}
			if s.Inconclusive+s.Diverged > 0 {
				extra += fmt.Sprintf(", %d inconclusive, %d diverged", s.Inconclusive, s.Diverged)
			}
			if s.Retries > 0 {
				extra += fmt.Sprintf(", %d pair retries", s.Retries)
			}
			if s.StopErr != "" {
				extra += fmt.Sprintf("; stopped by a harness error: %s", s.StopErr)
			}
			return fmt.Sprintf("%d of %d%s", s.Violations, s.Attempted, extra)
		})
		row("wall time per attempt", mode, func(v *VersionReport) string {
			s := v.Sweep[ov]
			if s == nil {
				s = v.First[ov]
			}
			return fmt.Sprint(s.PerAttempt().Round(time.Millisecond))
		})
	}
	row("baseline: trials that fail (no Interleave)", "both started together", func(v *VersionReport) string {
		b := v.Baseline
		if b == nil {
			return "-"
		}
		return fmt.Sprintf("%d of %d", b.Failures, b.Trials)
	})
	row("baseline: wall time per trial", "both started together", func(v *VersionReport) string {
		return fmt.Sprint(v.Baseline.PerTrial().Round(time.Millisecond))
	})
	if g := r.GuidedAfter; g != nil {
		fmt.Fprintf(w, "\nGuided replay of the %s failure (one at a time) against %s: the recorded failure recurred in %d of %d replays %s.\n",
			c.Before.Label, c.After.Label, g.Reproduced, g.N, outcomes(g.Outcomes))
	}
	for _, v := range []*VersionReport{r.Before, r.After} {
		for _, ov := range []string{"", "pairs"} {
			s := v.First[ov]
			if s == nil || !failed(s.Outcome) {
				continue
			}
			fmt.Fprintf(w, "\n%s %s, %s: first failure on attempt %d: %s\n\n```\n%s\n```\n", c.Library, v.Version.Label, overlapName(ov), s.Attempted, s.Message, strings.Join(s.Order, "\n"))
			if mm := v.Minimize[ov]; mm != nil && len(mm.Order) > 0 && mm.After < mm.Before {
				fmt.Fprintf(w, "\nMinimized (%d choices; `*` marks a choice):\n\n```\n%s\n```\n", mm.After, strings.Join(mm.Order, "\n"))
			}
		}
		for _, ov := range []string{"", "pairs"} {
			if s := v.Sweep[ov]; s != nil && len(s.Messages) > 0 {
				fmt.Fprintf(w, "\nFailure messages in the exploration of %s %s, %s (per attempt, pair retries included):\n\n", c.Library, v.Version.Label, overlapName(ov))
				for _, msg := range sortedKeys(s.Messages) {
					fmt.Fprintf(w, "- %d x %s\n", s.Messages[msg], msg)
				}
			}
		}
		if b := v.Baseline; b != nil && len(b.Messages) > 0 {
			fmt.Fprintf(w, "\nBaseline failures of %s %s:\n\n", c.Library, v.Version.Label)
			for _, msg := range sortedKeys(b.Messages) {
				fmt.Fprintf(w, "- %d x %s\n", b.Messages[msg], msg)
			}
		}
	}
	fmt.Fprintln(w)
}

func (r *CaseReport) maxReplays() int {
	n := 0
	for _, v := range []*VersionReport{r.Before, r.After} {
		for _, rp := range v.Replays {
			if rp.N > n {
				n = rp.N
			}
		}
	}
	return n
}

func outcomes(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
