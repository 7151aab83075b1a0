package scenario

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/pginterleave/interleave/artifact"
)

// execStep is one released step of a permutation: what the session got
// back, and what the scheduler recorded about its unit.
type execStep struct {
	ps        PermutationStep
	step      *Step
	session   string
	result    StepResult
	order     int   // the decision that released it
	released  int64 // µs since the attempt started
	completed int64 // µs; math.MaxInt64 when it never completed
	lockWait  bool  // PostgreSQL reported it waiting on a lock
}

// permOutput is one permutation's raw material.
type permOutput struct {
	spec      *Spec
	perm      []PermutationStep
	setup     []StepResult // global setup blocks
	teardown  *StepResult  // global teardown block
	sessions  [][]StepResult
	units     [][]artifact.Unit // per session, in unit order
	failure   string            // why the permutation could not run
	setupDone bool
}

// render writes the tester's output for one permutation: the header, the
// setup results, every step with <waiting ...> and <... completed> where
// PostgreSQL reported a lock wait, then the teardown results.
func (p *permOutput) render(b *strings.Builder) {
	b.WriteString("\nstarting permutation:")
	for _, ps := range p.perm {
		b.WriteString(" " + ps.Name)
	}
	b.WriteByte('\n')
	for _, r := range p.setup {
		writeStepResult(b, r)
	}
	for i, sess := range p.spec.Sessions {
		if r, ok := p.block(i, "setup"); ok {
			writeNotices(b, sess.Name, r)
			writeStepResult(b, r)
		}
	}
	steps, missing := p.stepsInReleaseOrder()
	if missing != "" && p.failure == "" {
		p.failure = missing
	}
	p.renderSteps(b, steps, p.failure == "")
	if p.failure != "" {
		fmt.Fprintf(b, "interleave: the permutation did not complete: %s\n", strings.Join(strings.Fields(p.failure), " "))
		return
	}
	for i, sess := range p.spec.Sessions {
		if r, ok := p.block(i, "teardown"); ok {
			writeNotices(b, sess.Name, r)
			for _, rs := range r.Results {
				writeResultSet(b, rs) // the tester reports teardown errors on stderr
			}
		}
	}
	if p.teardown != nil {
		for _, rs := range p.teardown.Results {
			writeResultSet(b, rs)
		}
	}
}

// block finds a session's setup or teardown result.
func (p *permOutput) block(session int, kind string) (StepResult, bool) {
	if session >= len(p.sessions) {
		return StepResult{}, false
	}
	for _, r := range p.sessions[session] {
		if r.Kind == kind {
			return r, true
		}
	}
	return StepResult{}, false
}

// stepsInReleaseOrder pairs each session's step results with its units (the
// i-th block a session sent is its unit i) and orders them as released.
func (p *permOutput) stepsInReleaseOrder() ([]*execStep, string) {
	var steps []*execStep
	perSession := map[int][]PermutationStep{}
	for _, ps := range p.perm {
		st := p.spec.stepByName(ps.Name)
		perSession[st.Session] = append(perSession[st.Session], ps)
	}
	missing := ""
	for i, sess := range p.spec.Sessions {
		var results []StepResult
		if i < len(p.sessions) {
			results = p.sessions[i]
		}
		offset := 0
		if sess.Setup != "" {
			offset = 1
		}
		for k, ps := range perSession[i] {
			n := offset + k
			if n >= len(results) || i >= len(p.units) || n >= len(p.units[i]) || p.units[i][n].ReleaseStep < 0 {
				if missing == "" {
					missing = fmt.Sprintf("step %s never ran", ps.Name)
				}
				continue
			}
			u := p.units[i][n]
			e := &execStep{ps: ps, step: p.spec.stepByName(ps.Name), session: sess.Name, result: results[n],
				order: u.ReleaseStep, released: u.ReleasedUS, completed: math.MaxInt64, lockWait: len(u.LockWaits) > 0}
			if u.Completed {
				e.completed = u.CompletedUS
			}
			steps = append(steps, e)
		}
	}
	sort.SliceStable(steps, func(a, b int) bool { return steps[a].order < steps[b].order })
	return steps, missing
}

// renderSteps replays the tester's loop over the released steps. Before a
// step of a session whose earlier step is still waiting, that step's
// completion is printed (the tester waits for it); after each step, every
// waiting step that completed before the next release is printed as
// "<... completed>", in the order they started waiting. When the attempt
// did not finish, completions after the last step's own are not shown:
// they may be the abort's doing.
func (p *permOutput) renderSteps(b *strings.Builder, steps []*execStep, finished bool) {
	end := int64(math.MaxInt64)
	if n := len(steps); !finished && n > 0 {
		end = steps[n-1].released
		if last := steps[n-1]; !last.lockWait && last.completed != math.MaxInt64 {
			end = last.completed
		}
	}
	var waiting []*execStep
	active := func(name string) bool { // a blocker step still running
		for _, w := range waiting {
			if w.ps.Name == name {
				return true
			}
		}
		return false
	}
	blocked := func(e *execStep, now int64, first bool) bool {
		if e.completed == math.MaxInt64 || e.completed > now {
			return true
		}
		for _, bl := range e.ps.Blockers {
			if (bl.Once && first) || (!bl.Once && bl.Notices == 0 && active(bl.Step)) {
				return true
			}
		}
		return false
	}
	complete := func(w *execStep) {
		writeNotices(b, w.session, w.result)
		fmt.Fprintf(b, "step %s: <... completed>\n", w.ps.Name)
		writeStepResult(b, w.result)
	}
	// sweep prints the waiting steps that are done by now, repeating while
	// a completion may have released a step blocked by a marker.
	sweep := func(now int64) {
		for again := true; again; {
			again = false
			for i := 0; i < len(waiting); i++ {
				w := waiting[i]
				if blocked(w, now, false) {
					continue
				}
				waiting = append(waiting[:i], waiting[i+1:]...)
				complete(w)
				again = true
				break
			}
		}
	}
	for i, e := range steps {
		next := end
		if i+1 < len(steps) {
			next = steps[i+1].released
		}
		for j, w := range waiting {
			if w.session == e.session {
				waiting = append(waiting[:j], waiting[j+1:]...)
				complete(w)
				sweep(e.released)
				break
			}
		}
		if e.lockWait || blocked(e, e.completed, true) {
			fmt.Fprintf(b, "step %s: %s <waiting ...>\n", e.ps.Name, e.step.SQL)
			sweep(next)
			waiting = append(waiting, e)
			continue
		}
		writeNotices(b, e.session, e.result)
		fmt.Fprintf(b, "step %s: %s\n", e.ps.Name, e.step.SQL)
		writeStepResult(b, e.result)
		sweep(next)
	}
	sweep(end) // what is left never completed: the failure says why
}
