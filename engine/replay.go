package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/fingerprint"
	"github.com/pginterleave/interleave/sched"
	"github.com/pginterleave/interleave/search"
)

// ReplayOptions configure Replay.
type ReplayOptions struct {
	Options
	// Guided follows the recorded order of actors against changed code
	// instead of requiring every command to be the recorded one.
	Guided bool
	// Repeat replays up to this many times until the recorded failure
	// recurs (for recordings with pair releases, which PostgreSQL may
	// interleave differently each time).
	Repeat int
	// Source names the replayed artifact in the new record.
	Source string
	// OnPause, when set, is called after step PauseAt with every session
	// still open; the replay goes on when it returns (pause.go).
	PauseAt int
	OnPause func(context.Context, Pause)
}

// ReplayResult is the outcome of a replay.
type ReplayResult struct {
	Scenario string
	Outcome  Outcome
	Message  string
	Guided   bool
	// Differences says, one line each, why the recording does not apply.
	Differences []string
	// RecordedServer and Server are the server's version() when recorded
	// and now, set when only the server (its version or settings) made an
	// exact replay incompatible: the program is unchanged.
	RecordedServer, Server string
	// SameFailure: the replay failed exactly as recorded (same kind and message).
	SameFailure bool
	// Followed of Of recorded (executing) releases were followed.
	Followed, Of int
	// Commands is how many executing units were released.
	Commands int
	// Attempts is how many replays ran; PairStep is the first decision that
	// released a pair (-1: none).
	Attempts int
	PairStep int
	Artifact *artifact.Artifact
	Saved    string
}

// ExitCode is the process exit code for the result.
func (r *ReplayResult) ExitCode() int { return r.Outcome.ExitCode() }

// Replay runs sc in the order rec recorded. An exact replay first checks the
// fingerprint (sources, versions, server, settings, then the database after
// setup) and reports every difference as incompatible before actors run;
// then it requires each pending command to be the recorded one.
func Replay(ctx context.Context, sc Scenario, rec *artifact.Artifact, opts ReplayOptions) (*ReplayResult, error) {
	o, err := begin(&sc, opts.Options)
	if err != nil {
		return nil, err
	}
	res := &ReplayResult{Scenario: sc.Name, Guided: opts.Guided, PairStep: -1}
	if err := checkPause(rec, opts); err != nil {
		return nil, err
	} else if opts.OnPause != nil {
		o.AttemptTimeout = pauseTimeout
	}
	if rec.Scenario.Name != sc.Name {
		return res.incompatible([]string{fmt.Sprintf("the artifact records scenario %q, not %q", rec.Scenario.Name, sc.Name)}), nil
	}
	if got, want := strings.Join(sc.ActorNames(), ","), strings.Join(rec.Scenario.Actors, ","); got != want {
		return res.incompatible([]string{fmt.Sprintf("the scenario's actors are %s; the recording has %s", got, want)}), nil
	}
	if err := search.CheckFaults(rec); err != nil {
		return res.incompatible([]string{err.Error()}), nil
	}
	fp, err := fingerprint.Of(fingerprint.Source(o.Source))
	if err != nil {
		if opts.Guided {
			fp = &artifact.Fingerprint{}
		} else {
			return res.incompatible([]string{"the sources cannot be checked: " + err.Error()}), nil
		}
	}
	fp.Profiles = o.profiles()
	fp.UpstreamTLS = o.Server.TLS
	if !opts.Guided {
		if d := fingerprint.ProgramDifferences(rec.Fingerprint, fp); len(d) > 0 {
			return res.incompatible(d), nil
		}
	}
	e, err := openEnvWith(ctx, o, 1, fp)
	if err != nil {
		return nil, err
	}
	r, err := e.replayAttempt(ctx, &sc, rec, res, opts)
	cleanup := e.closeRecorded()
	if err != nil {
		return nil, err
	}
	if res.Artifact != nil {
		res.Artifact.Cleanup = cleanup
	}
	_ = r
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if o.Output.Out != "" && res.Artifact != nil && res.Outcome != OutcomeIncompatible {
		if err := artifact.Write(o.Output.Out, res.Artifact, o.Output.Force); err != nil {
			return res, fmt.Errorf("save the artifact: %w", err)
		}
		res.Saved = o.Output.Out
	}
	return res, nil
}

func (res *ReplayResult) incompatible(diffs []string) *ReplayResult {
	res.Outcome = OutcomeIncompatible
	res.Differences = diffs
	res.Message = "the recording no longer applies"
	return res
}

func (e *env) replayAttempt(ctx context.Context, sc *Scenario, rec *artifact.Artifact, res *ReplayResult, opts ReplayOptions) (*attemptResult, error) {
	w, err := e.newWorker(ctx)
	if err != nil {
		return nil, err
	}
	defer w.close(context.Background())
	if !opts.Guided {
		if rec.Fingerprint == nil {
			res.incompatible([]string{"the artifact carries no fingerprint"})
			return nil, nil
		}
		if d := fingerprint.ServerDifferences(rec.Fingerprint, e.fingerprint()); len(d) > 0 {
			res.incompatible(d)
			res.RecordedServer, res.Server = rec.Fingerprint.ServerVersion, e.fingerprint().ServerVersion
			return nil, nil
		}
		w.checkSetup = func(p *artifact.DatabasePrint) error {
			if d := fingerprint.DatabaseDifferences(rec.Fingerprint.Database, p); len(d) > 0 {
				res.Differences = d
				return fmt.Errorf("%w: %s", search.ErrIncompatible, strings.Join(d, "; "))
			}
			return nil
		}
	}
	firstPair := -1
	for _, d := range rec.Schedule.Decisions {
		if len(d.Release) == 2 {
			firstPair = d.Step
			break
		}
	}
	res.PairStep = firstPair
	repeat := opts.Repeat
	if repeat < 1 {
		repeat = 1
	}
	var r *attemptResult
	var a *artifact.Artifact
	var guided *search.GuidedPolicy
	var mm *search.Mismatch
	for i := 0; i < repeat; i++ {
		// A deadlock timer that ended out of the recorded victim order
		// runs the same order again, with longer timeouts (runPlanned).
		r = w.runPlanned(ctx, sc, func() sched.Policy {
			var policy sched.Policy
			if opts.Guided {
				guided = search.NewGuidedPolicy(rec, sc.ActorNames())
				policy = guided
			} else {
				policy = search.NewExactPolicy(rec, sc.ActorNames())
			}
			return w.pausing(ctx, policy, rec, opts)
		}, victimsOf(rec, sc.ActorNames()))
		res.Attempts = i + 1
		mode := "replay"
		if opts.Guided {
			mode = "guided-replay"
		}
		a = e.recordAttempt(sc, mode, r)
		mm = nil
		errors.As(r.SchedErr, &mm)
		same := r.Outcome.Failed() && artifact.FailureFingerprint(string(r.Outcome), r.Message) == rec.Outcome.FailureFingerprint
		if same || ctx.Err() != nil || r.Outcome == OutcomeIncompatible || (mm != nil && (firstPair < 0 || mm.Step <= firstPair)) {
			break
		}
	}
	res.Artifact = a
	res.Commands = a.ReleaseCounts().Executing
	if x := rec.Explanation; x != nil && !opts.Guided && mm == nil && r.Outcome.Failed() &&
		artifact.FailureFingerprint(string(r.Outcome), r.Message) == rec.Outcome.FailureFingerprint &&
		artifact.ValidateExplanation(x, a) == nil {
		// The same order failing the same way: the recording's explanation
		// (its anomaly and critical pair) is this artifact's too.
		a.Explanation = x
	}
	info := &artifact.Replay{Source: opts.Source, Guided: opts.Guided, Attempts: res.Attempts}
	a.Replay = info

	if r.Outcome == OutcomeIncompatible {
		if len(res.Differences) == 0 {
			res.Differences = []string{r.Message}
		}
		res.incompatible(res.Differences)
		return r, nil
	}
	if mm != nil && firstPair >= 0 && mm.Step > firstPair {
		// After a pair release PostgreSQL decides which statement goes
		// first: a different course is not an incompatibility.
		res.Outcome = OutcomeInconclusive
		res.Message = fmt.Sprintf("the recorded failure did not recur in %d attempts (after the pair released at step %d, PostgreSQL took another course); try a larger ReplayOptions.Repeat", res.Attempts, firstPair)
		return r, nil
	}
	if mm != nil {
		res.incompatible([]string{describeMismatch(mm, rec, a)})
		return r, nil
	}
	if opts.Guided {
		res.Followed, res.Of = guided.Followed()
	} else {
		if d := scheduleDifferences(rec, a); len(d) > 0 {
			res.incompatible(d)
			return r, nil
		}
		res.Followed, res.Of = len(rec.Schedule.Decisions), len(rec.Schedule.Decisions)
	}
	info.Followed, info.Of = res.Followed, res.Of
	res.Outcome, res.Message = r.Outcome, r.Message
	res.SameFailure = r.Outcome.Failed() && a.Outcome.FailureFingerprint == rec.Outcome.FailureFingerprint
	if firstPair >= 0 && !res.SameFailure && rec.Outcome.Failed() && !r.Outcome.Failed() {
		res.Outcome = OutcomeInconclusive
		res.Message = fmt.Sprintf("the recorded failure did not recur in %d attempts (%s); a pair release lets PostgreSQL interleave two statements its own way; try a larger ReplayOptions.Repeat", res.Attempts, r.Outcome)
	}
	if opts.Guided && r.Outcome == OutcomePass {
		// A repair changes commands, so part of the recorded order may no
		// longer exist; the attempt's outcome stands (exit 0), as
		// interleavetest.Replay judges it. Say how far it went and what next.
		how := fmt.Sprintf("the recorded order was followed for all %d commands", res.Of)
		if res.Followed < res.Of {
			how = fmt.Sprintf("the recorded order could be followed for %d of %d commands (%s); the rest ran in the default order", res.Followed, res.Of, guided.Stopped())
			if guided.Stopped() == "" {
				how = fmt.Sprintf("the changed code sent %d of the %d recorded commands, followed in the recorded order", res.Followed, res.Of)
			}
		}
		res.Message = how + "; one order passing is not proof: search every order of the changed code with `interleave run`"
	}
	return r, nil
}

// scheduleDifferences compares a completed exact replay with its recording:
// the number of decisions, the units blocked at each step and the
// transaction state each unit ended in.
func scheduleDifferences(rec, now *artifact.Artifact) []string {
	var d []string
	if n, m := len(rec.Schedule.Decisions), len(now.Schedule.Decisions); n != m {
		d = append(d, fmt.Sprintf("the recording has %d decisions; the replay made %d (fewer commands)", n, m))
		return d
	}
	for i, rd := range rec.Schedule.Decisions {
		if nd := now.Schedule.Decisions[i]; !search.SameRefs(rd.Blocked, nd.Blocked) {
			d = append(d, fmt.Sprintf("step %d: units waiting on locks were %s, recorded %s", i, refList(nd.Blocked), refList(rd.Blocked)))
		}
	}
	recUnits := map[[3]any]artifact.Unit{}
	for _, u := range rec.Units {
		recUnits[[3]any{u.Actor, u.Conn, u.Unit}] = u
	}
	for _, u := range now.Units {
		r, ok := recUnits[[3]any{u.Actor, u.Conn, u.Unit}]
		if ok && r.Completed && u.Completed && r.TxStatus != u.TxStatus {
			d = append(d, fmt.Sprintf("%s's unit %d (%s) ended in transaction state %s, recorded %s", u.Actor, u.Unit, sqlOf(u), u.TxStatus, r.TxStatus))
		}
	}
	d = append(d, fingerprint.ConnectionDifferences(rec.Fingerprint.Connections, now.Fingerprint.Connections)...)
	return d
}

func refList(rs []artifact.UnitRef) string {
	if len(rs) == 0 {
		return "none"
	}
	var s []string
	for _, r := range rs {
		s = append(s, fmt.Sprintf("%s#%d.%d", r.Actor, r.Conn, r.Unit))
	}
	return strings.Join(s, ", ")
}

func sqlOf(u artifact.Unit) string {
	if len(u.SQL) == 0 {
		return u.Protocol + " " + u.Messages
	}
	return strings.Join(u.SQL, "; ")
}

// describeMismatch puts both versions of the commands at the failing step.
func describeMismatch(m *search.Mismatch, rec, now *artifact.Artifact) string {
	find := func(a *artifact.Artifact, r artifact.UnitRef) string {
		for _, u := range a.Units {
			if u.Actor == r.Actor && u.Conn == r.Conn && u.Unit == r.Unit {
				return fmt.Sprintf("%s#%d.%d %q", r.Actor, r.Conn, r.Unit, sqlOf(u))
			}
		}
		return fmt.Sprintf("%s#%d.%d", r.Actor, r.Conn, r.Unit)
	}
	var recd, nowd []string
	for _, r := range m.Recorded {
		recd = append(recd, find(rec, r))
	}
	for _, r := range m.Now {
		nowd = append(nowd, find(now, r))
	}
	if len(recd) == 0 {
		recd = []string{"nothing"}
	}
	if len(nowd) == 0 {
		nowd = []string{"nothing"}
	}
	return fmt.Sprintf("step %d: %s; recorded: %s; now: %s", m.Step, m.What, strings.Join(recd, ", "), strings.Join(nowd, ", "))
}
