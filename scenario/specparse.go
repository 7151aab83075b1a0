package scenario

import (
	"bytes"
	"fmt"
	"strconv"
)

// Tokens of the isolation-tester spec grammar (specscanner.l).
const (
	tkEOF = iota
	tkIdent
	tkSQL
	tkInt
	tkKeyword
	tkPunct
)

type specToken struct {
	kind      int
	text      string
	line, col int
}

func (t specToken) describe() string {
	switch t.kind {
	case tkEOF:
		return "the end of the file"
	case tkIdent:
		return fmt.Sprintf("name %q", t.text)
	case tkSQL:
		return "an SQL block { ... }"
	case tkInt:
		return "number " + t.text
	case tkKeyword:
		return "keyword " + t.text
	}
	return fmt.Sprintf("%q", t.text)
}

var specKeywords = map[string]bool{"notices": true, "permutation": true, "session": true, "setup": true, "step": true, "teardown": true}

type specLexer struct {
	src       []byte
	i         int
	line, col int
	path      string
}

func (l *specLexer) errAt(line, col int, format string, args ...any) error {
	return &PosError{Path: l.path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// advance moves over n bytes, counting lines.
func (l *specLexer) advance(n int) {
	for ; n > 0 && l.i < len(l.src); n-- {
		if l.src[l.i] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.i++
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' }

func identStart(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c >= 0x80
}

func identCont(c byte) bool { return identStart(c) || c >= '0' && c <= '9' || c == '$' }

func (l *specLexer) next() (specToken, error) {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '\n' || isSpace(c):
			l.advance(1)
			continue
		case c == '#':
			for l.i < len(l.src) && l.src[l.i] != '\n' && l.src[l.i] != '\r' {
				l.advance(1)
			}
			continue
		}
		break
	}
	t := specToken{line: l.line, col: l.col}
	if l.i >= len(l.src) {
		return t, nil
	}
	c := l.src[l.i]
	switch {
	case c == 0:
		return t, l.errAt(t.line, t.col, "the file contains a NUL byte")
	case identStart(c):
		j := l.i
		for j < len(l.src) && identCont(l.src[j]) {
			j++
		}
		t.text = string(l.src[l.i:j])
		t.kind = tkIdent
		if specKeywords[t.text] {
			t.kind = tkKeyword
		}
		l.advance(j - l.i)
	case c >= '0' && c <= '9':
		j := l.i
		for j < len(l.src) && l.src[j] >= '0' && l.src[j] <= '9' {
			j++
		}
		t.kind, t.text = tkInt, string(l.src[l.i:j])
		l.advance(j - l.i)
	case c == '"':
		l.advance(1)
		var b []byte
		for {
			if l.i >= len(l.src) {
				return t, l.errAt(t.line, t.col, "unterminated quoted identifier")
			}
			ch := l.src[l.i]
			if ch == '\n' {
				return t, l.errAt(l.line, l.col, "unexpected newline in quoted identifier")
			}
			if ch == '"' {
				if l.i+1 < len(l.src) && l.src[l.i+1] == '"' {
					b = append(b, '"')
					l.advance(2)
					continue
				}
				l.advance(1)
				break
			}
			b = append(b, ch)
			l.advance(1)
		}
		t.kind, t.text = tkIdent, string(b)
	case c == '{':
		// Spaces after '{' and before '}' are trimmed, newlines are kept;
		// the block ends at the first '}' (as in the tester's scanner).
		l.advance(1)
		for l.i < len(l.src) && isSpace(l.src[l.i]) {
			l.advance(1)
		}
		end := bytes.IndexByte(l.src[l.i:], '}')
		if end < 0 {
			return t, l.errAt(t.line, t.col, "unterminated sql block")
		}
		body := l.src[l.i : l.i+end]
		if k := bytes.IndexByte(body, 0); k >= 0 {
			l.advance(k)
			return t, l.errAt(l.line, l.col, "the file contains a NUL byte")
		}
		for len(body) > 0 && isSpace(body[len(body)-1]) {
			body = body[:len(body)-1]
		}
		t.kind, t.text = tkSQL, string(body)
		l.advance(end + 1)
	case c == ',' || c == '(' || c == ')' || c == '*':
		t.kind, t.text = tkPunct, string(c)
		l.advance(1)
	default:
		return t, l.errAt(t.line, t.col, "syntax error: unexpected character %q", c)
	}
	return t, nil
}

// specParser is a recursive-descent parser for specparse.y:
//
//	spec:    setup* [teardown {sql}] session+ permutation*
//	session: session NAME [setup {sql}] (step NAME {sql})+ [teardown {sql}]
//	permutation: permutation (NAME ['(' blocker (',' blocker)* ')'])+
//	blocker: NAME | NAME notices INT | '*'
type specParser struct {
	lex specLexer
	tok specToken
}

func (p *specParser) advance() error {
	t, err := p.lex.next()
	p.tok = t
	return err
}

func (p *specParser) is(kind int, text string) bool {
	return p.tok.kind == kind && (text == "" || p.tok.text == text)
}

func (p *specParser) fail(want string) error {
	return p.lex.errAt(p.tok.line, p.tok.col, "syntax error: expected %s, found %s", want, p.tok.describe())
}

// take returns the current token's text if it is of the kind, and moves on.
func (p *specParser) take(kind int, want string) (specToken, error) {
	if p.tok.kind != kind {
		return p.tok, p.fail(want)
	}
	t := p.tok
	return t, p.advance()
}

func (p *specParser) parse() (*Spec, error) {
	s := &Spec{}
	if err := p.advance(); err != nil {
		return nil, err
	}
	for p.is(tkKeyword, "setup") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		t, err := p.take(tkSQL, "an SQL block { ... } after setup")
		if err != nil {
			return nil, err
		}
		s.Setup = append(s.Setup, t.text)
	}
	if p.is(tkKeyword, "teardown") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		t, err := p.take(tkSQL, "an SQL block { ... } after teardown")
		if err != nil {
			return nil, err
		}
		s.Teardown = t.text
	}
	if !p.is(tkKeyword, "session") {
		return nil, p.fail("session (a spec has at least one session)")
	}
	for p.is(tkKeyword, "session") {
		sess, err := p.session(len(s.Sessions))
		if err != nil {
			return nil, err
		}
		s.Sessions = append(s.Sessions, sess)
	}
	for p.is(tkKeyword, "permutation") {
		perm, err := p.permutation()
		if err != nil {
			return nil, err
		}
		s.Permutations = append(s.Permutations, perm)
	}
	if p.tok.kind != tkEOF {
		return nil, p.fail("session, permutation or the end of the file")
	}
	return s, nil
}

func (p *specParser) session(index int) (*Session, error) {
	sess := &Session{Line: p.tok.line, Col: p.tok.col}
	if err := p.advance(); err != nil {
		return nil, err
	}
	name, err := p.take(tkIdent, "the session's name")
	if err != nil {
		return nil, err
	}
	sess.Name = name.text
	if p.is(tkKeyword, "setup") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		t, err := p.take(tkSQL, "an SQL block { ... } after setup")
		if err != nil {
			return nil, err
		}
		sess.Setup = t.text
	}
	if !p.is(tkKeyword, "step") {
		return nil, p.fail("step (session " + sess.Name + " has no steps)")
	}
	for p.is(tkKeyword, "step") {
		st := &Step{Session: index, Line: p.tok.line, Col: p.tok.col}
		if err := p.advance(); err != nil {
			return nil, err
		}
		n, err := p.take(tkIdent, "the step's name")
		if err != nil {
			return nil, err
		}
		sql, err := p.take(tkSQL, "the step's SQL block { ... }")
		if err != nil {
			return nil, err
		}
		st.Name, st.SQL = n.text, sql.text
		sess.Steps = append(sess.Steps, st)
	}
	if p.is(tkKeyword, "teardown") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		t, err := p.take(tkSQL, "an SQL block { ... } after teardown")
		if err != nil {
			return nil, err
		}
		sess.Teardown = t.text
	}
	return sess, nil
}

func (p *specParser) permutation() (*Permutation, error) {
	perm := &Permutation{Line: p.tok.line, Col: p.tok.col}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if !p.is(tkIdent, "") {
		return nil, p.fail("a step name after permutation")
	}
	for p.is(tkIdent, "") {
		ps := PermutationStep{Name: p.tok.text, Line: p.tok.line, Col: p.tok.col}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.is(tkPunct, "(") {
			for {
				if err := p.advance(); err != nil {
					return nil, err
				}
				b, err := p.blocker()
				if err != nil {
					return nil, err
				}
				ps.Blockers = append(ps.Blockers, b)
				if p.is(tkPunct, ")") {
					break
				}
				if !p.is(tkPunct, ",") {
					return nil, p.fail("',' or ')' in the markers of step " + ps.Name)
				}
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
		perm.Steps = append(perm.Steps, ps)
	}
	return perm, nil
}

func (p *specParser) blocker() (Blocker, error) {
	if p.is(tkPunct, "*") {
		return Blocker{Once: true}, p.advance()
	}
	n, err := p.take(tkIdent, "a step name or * as a marker")
	if err != nil {
		return Blocker{}, err
	}
	b := Blocker{Step: n.text}
	if p.is(tkKeyword, "notices") {
		if err := p.advance(); err != nil {
			return b, err
		}
		num, err := p.take(tkInt, "a number after notices")
		if err != nil {
			return b, err
		}
		v, err := strconv.Atoi(num.text)
		if err != nil || v < 1 {
			return b, p.lex.errAt(num.line, num.col, "notices needs a number from 1 to %d", int32(^uint32(0)>>1))
		}
		b.Notices = v
	}
	return b, nil
}
