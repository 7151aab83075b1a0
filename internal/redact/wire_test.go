package redact

import (
	"bytes"
	"strings"
	"testing"
)

// TestPasswordLiterals: the value of every spelling of a PASSWORD literal
// is found, and nothing that is not one.
func TestPasswordLiterals(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{`ALTER ROLE app PASSWORD 'hunter22'`, "hunter22"},
		{`alter role app pAsSwOrD 'mixed-case'`, "mixed-case"},
		{`ALTER ROLE p PASSWORD 'after-a-p'`, "after-a-p"},
		{`create user app with login encrypted password 'it''s-secret'`, "it''s-secret"},
		{"CREATE ROLE app PASSWORD /* c /* nested */ */ -- x\n E'back\\'slash'", `back\'slash`},
		{`ALTER USER app PASSWORD $pw$dollar'd$pw$ VALID UNTIL 'infinity'`, "dollar'd"},
		{`ALTER ROLE app PASSWORD U&'uni\0041code'`, `uni\0041code`},
		{"Q\x00\x00\x00\x20ALTER ROLE app PASSWORD 'unterminated\x00", "unterminated"},
		{`ALTER USER app PASSWORD 'SCRAM-SHA-256$4096:c2FsdA==$a:b'`, "SCRAM-SHA-256$4096:c2FsdA==$a:b"},
	} {
		spans := PasswordLiterals([]byte(c.sql))
		if len(spans) != 1 || c.sql[spans[0][0]:spans[0][1]] != c.want {
			t.Errorf("%q: found %v, want the value %q", c.sql, spans, c.want)
		}
	}
	for _, sql := range []string{
		`SELECT password FROM users WHERE password = 'x'`,
		`SELECT my_password 'x'`,
		`ALTER ROLE app PASSWORD NULL`,
		`INSERT INTO t (password) VALUES ('x')`,
	} {
		if spans := PasswordLiterals([]byte(sql)); len(spans) != 0 {
			t.Errorf("%q: found %v, want none", sql, spans)
		}
	}
	if got := Literals([]byte(`ALTER ROLE a PASSWORD 'it''s-long'; ALTER ROLE b PASSWORD 'app'`)); len(got) != 1 || got[0] != "it's-long" {
		t.Errorf("Literals = %q; want only the long one, quotes undoubled", got)
	}
}

// TestMaskKeepsLengths: Mask overwrites every form of a secret and every
// PASSWORD literal byte for byte; Masked never writes its input; String
// masks literals in text too.
func TestMaskKeepsLengths(t *testing.T) {
	const p = `pa'ss w/rd`
	s := Password("other").With(p, "")
	in := []byte("Q\x00\x00\x00\x40SELECT 'pa''ss w/rd', $1; ALTER ROLE x PASSWORD 'short'\x00 pa%27ss+w%2Frd " + p)
	orig := append([]byte(nil), in...)
	out := s.Masked(in)
	if !bytes.Equal(in, orig) {
		t.Fatal("Masked wrote its input")
	}
	if len(out) != len(in) || bytes.Contains(out, []byte("w/rd")) || bytes.Contains(out, []byte("w%2Frd")) || bytes.Contains(out, []byte("short")) {
		t.Fatalf("masked: %q", out)
	}
	if !bytes.Contains(out, []byte("PASSWORD '*****'")) {
		t.Errorf("the literal is not masked where it stands: %q", out)
	}
	clean := []byte("SELECT 1")
	if got := s.Masked(clean); &got[0] != &clean[0] {
		t.Error("a clean input was copied")
	}
	if got := (Secrets{}).String("ALTER ROLE x PASSWORD 'abcdefgh'"); strings.Contains(got, "abcdefgh") {
		t.Errorf("String kept a literal: %q", got)
	}
	if got := string((Secrets{}).JSON([]byte(`{"sql": "ALTER ROLE x PASSWORD 'abcdefgh'"}`))); strings.Contains(got, "abcdefgh") {
		t.Errorf("JSON kept a literal: %s", got)
	}
}

// FuzzMask: any bytes, found literals lie inside the input in order, Mask
// keeps the length, masks every found value and every form of the secret,
// and masking again changes nothing more.
func FuzzMask(f *testing.F) {
	for _, seed := range []string{
		"Q\x00\x00\x00\x20ALTER ROLE app PASSWORD 'hunter22'\x00",
		"password $a$x$a$ PASSWORD E'\\'' pAsSwOrD /* /* */ */ U&'x'",
		"PASSWORD $$", "PASSWORD '", "xpassword 'a'", "PASSWORD -- c\n'v'",
	} {
		f.Add([]byte(seed), "secret")
	}
	f.Fuzz(func(t *testing.T, b []byte, secret string) {
		spans := PasswordLiterals(b)
		last := 0
		for _, sp := range spans {
			if sp[0] < last || sp[0] > sp[1] || sp[1] > len(b) {
				t.Fatalf("span %v out of order or bounds (len %d, previous end %d)", sp, len(b), last)
			}
			last = sp[1]
		}
		s := Password(secret)
		c := append([]byte(nil), b...)
		s.Mask(c)
		if len(c) != len(b) {
			t.Fatalf("length %d became %d", len(b), len(c))
		}
		for _, sp := range spans {
			for _, x := range c[sp[0]:sp[1]] {
				if x != MaskByte {
					t.Fatalf("literal %v not masked: %q", sp, c)
				}
			}
		}
		if secret != "" && bytes.Contains(c, []byte(secret)) && !bytes.Contains([]byte(secret), []byte{MaskByte}) {
			t.Fatalf("the secret %q is left in %q", secret, c)
		}
	})
}
