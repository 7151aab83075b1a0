package scenario

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Spec is a PostgreSQL isolation-tester spec file
// (src/test/isolation/specs/*.spec).
type Spec struct {
	Name string // the file's base name without .spec: the scenario's name
	Path string
	// Setup blocks run in order on a direct connection; Teardown after
	// every permutation.
	Setup    []string
	Teardown string
	Sessions []*Session
	// Permutations are the spec's permutation lines; without any, every
	// interleaving of the sessions' steps runs (as the tester does).
	Permutations []*Permutation
	// Expected, when set, is the path of the tester's expected output that
	// RunSpec compares its output with.
	Expected string
}

// Session is one connection: a setup block, steps, a teardown block.
type Session struct {
	Name      string
	Setup     string
	Teardown  string
	Steps     []*Step
	Line, Col int
}

// Step is one SQL block of a session. SQL is kept as the tester keeps it:
// spaces and tabs after '{' and before '}' trimmed, newlines kept.
type Step struct {
	Name      string
	SQL       string
	Session   int // index into Spec.Sessions
	Line, Col int
}

// Permutation is one permutation line.
type Permutation struct {
	Steps     []PermutationStep
	Line, Col int
}

// PermutationStep names a step, with its optional blocker markers:
// s1a(*), s1a(s2b), s1a(s2b notices 1).
type PermutationStep struct {
	Name      string
	Blockers  []Blocker
	Line, Col int
}

// Blocker is one marker inside a permutation step's parentheses.
type Blocker struct {
	Once    bool   // (*): reported as waiting once
	Step    string // (name): waits while that step is running
	Notices int    // (name notices N): waits until N notices from its session
}

// String writes the marker as in the spec.
func (b Blocker) String() string {
	switch {
	case b.Once:
		return "*"
	case b.Notices > 0:
		return fmt.Sprintf("%s notices %d", b.Step, b.Notices)
	}
	return b.Step
}

// maxSessions is interleave's limit on actors.
const maxSessions = 8

// LoadSpec reads and checks a spec file. Mistakes are reported as
// *PosError ("path:line:col: message").
func LoadSpec(path string) (*Spec, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	return ParseSpec(path, data)
}

// ParseSpec parses a spec's contents; path names it in messages.
func ParseSpec(path string, data []byte) (*Spec, error) {
	p := &specParser{lex: specLexer{src: data, path: path, line: 1, col: 1}}
	spec, err := p.parse()
	if err != nil {
		return nil, err
	}
	spec.Path = path
	spec.Name = specName(path)
	if err := spec.validate(); err != nil {
		return nil, err
	}
	return spec, nil
}

var unsafeNameChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// specName turns a file name into a scenario name.
func specName(path string) string {
	n := unsafeNameChars.ReplaceAllString(strings.TrimSuffix(filepath.Base(path), ".spec"), "_")
	if n == "" || !(n[0] >= 'A' && n[0] <= 'Z' || n[0] >= 'a' && n[0] <= 'z') {
		n = "spec-" + n
	}
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// validate applies the tester's checks (unique step names, permutations
// name existing steps) and interleave's limit of 8 sessions.
func (s *Spec) validate() error {
	at := func(line, col int, format string, args ...any) error {
		return &PosError{Path: s.Path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	if len(s.Sessions) > maxSessions {
		x := s.Sessions[maxSessions]
		return at(x.Line, x.Col, "session %s is the 9th; interleave runs at most %d sessions (actors)", x.Name, maxSessions)
	}
	sessions := map[string]bool{}
	steps := map[string]*Step{}
	for _, sess := range s.Sessions {
		if sessions[sess.Name] {
			return at(sess.Line, sess.Col, "two sessions are named %s", sess.Name)
		}
		sessions[sess.Name] = true
		for _, st := range sess.Steps {
			if steps[st.Name] != nil {
				return at(st.Line, st.Col, "duplicate step name: %s", st.Name)
			}
			steps[st.Name] = st
		}
	}
	for _, perm := range s.Permutations {
		for _, ps := range perm.Steps {
			st := steps[ps.Name]
			if st == nil {
				return at(ps.Line, ps.Col, "undefined step %q specified in permutation", ps.Name)
			}
			for _, b := range ps.Blockers {
				if b.Once {
					continue
				}
				bs := steps[b.Step]
				if bs == nil {
					return at(ps.Line, ps.Col, "undefined blocking step %q referenced in permutation step %s", b.Step, ps.Name)
				}
				if bs.Session == st.Session {
					return at(ps.Line, ps.Col, "permutation step %s cannot block on step %s of its own session", ps.Name, b.Step)
				}
			}
		}
	}
	return nil
}

// stepByName finds a step.
func (s *Spec) stepByName(name string) *Step {
	for _, sess := range s.Sessions {
		for _, st := range sess.Steps {
			if st.Name == name {
				return st
			}
		}
	}
	return nil
}
