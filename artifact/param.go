package artifact

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Param is one bind parameter (or function-call argument) as the client
// sent it: structured, so that every reader renders it from the data and
// none parses a rendering back.
type Param struct {
	// Null: the client sent SQL NULL (length -1).
	Null bool `json:"null,omitempty"`
	// Binary: the value was sent in binary format (format code 1).
	Binary bool `json:"binary,omitempty"`
	// Text is a text-format value that is valid UTF-8, cut at MaxParamBytes.
	Text string `json:"text,omitempty"`
	// Hex is any other value (binary, or text that is not UTF-8) as
	// lower-case hex digits, cut at MaxParamBytes bytes.
	Hex string `json:"hex,omitempty"`
	// Size is the number of bytes sent.
	Size int `json:"size"`
	// Int reads a 4- or 8-byte binary value as a big-endian signed integer:
	// the reading drivers send integers in (int4 or int8 by Size). It is a
	// guess at the type; Hex has the bytes.
	Int *int64 `json:"int,omitempty"`
}

// MaxParamBytes bounds the bytes of one parameter kept in a record.
const MaxParamBytes = 200

// Cut reports whether the record holds fewer bytes than were sent.
func (p Param) Cut() bool {
	if p.Null {
		return false
	}
	if p.Hex != "" || p.Binary {
		return len(p.Hex)/2 < p.Size
	}
	return len(p.Text) < p.Size
}

// IntType names the integer reading: "int4" or "int8", "" when there is none.
func (p Param) IntType() string {
	if p.Int == nil {
		return ""
	}
	if p.Size == 8 {
		return "int8"
	}
	return "int4"
}

// String renders the parameter in full: NULL, a quoted text value, or
// \x and hex digits with what the bytes were.
func (p Param) String() string {
	switch {
	case p.Null:
		return "NULL"
	case !p.Binary && p.Hex == "":
		s := strconv.Quote(p.Text)
		if p.Cut() {
			s += "… (" + strconv.Itoa(p.Size) + " bytes)"
		}
		return s
	}
	s := `\x` + p.Hex
	if p.Cut() {
		s += "… (" + strconv.Itoa(p.Size) + " bytes)"
	}
	switch {
	case !p.Binary:
		return s + " (text, not UTF-8)"
	case p.Int != nil:
		return s + " (binary; as " + p.IntType() + " " + strconv.FormatInt(*p.Int, 10) + ")"
	}
	return s + " (binary)"
}

// Value is the parameter's value as text: the text itself, the integer
// reading of a binary int4/int8, NULL, or \x and hex digits.
func (p Param) Value() string {
	switch {
	case p.Null:
		return "NULL"
	case p.Int != nil:
		return strconv.FormatInt(*p.Int, 10)
	case !p.Binary && p.Hex == "":
		return p.Text
	}
	return `\x` + p.Hex
}

// Values lists the parameters' Value.
func Values(ps []Param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Value()
	}
	return out
}

// Brief renders the parameter for a one-line summary: text as it is, an
// integer reading as `1 (int4?)`, other binary values as hex.
func (p Param) Brief() string {
	switch {
	case p.Null:
		return "NULL"
	case p.Int != nil:
		return strconv.FormatInt(*p.Int, 10) + " (" + p.IntType() + "?)"
	case !p.Binary && p.Hex == "":
		return p.Text
	}
	return `\x` + p.Hex
}

// UnmarshalJSON reads a parameter; a JSON string is how schema version 1
// recorded one (its rendering), read once here so that old artifacts still
// load.
func (p *Param) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*p = legacyParam(s)
		return nil
	}
	type plain Param
	return json.Unmarshal(b, (*plain)(p))
}

// legacyParam reads a version 1 rendering: NULL, `\xHEX (binary; as int4
// N)`, `\xHEX (binary)`, or the text itself.
func legacyParam(s string) Param {
	if s == "NULL" {
		return Param{Null: true}
	}
	if h, ok := strings.CutPrefix(s, `\x`); ok {
		if hex, ok := strings.CutSuffix(h, " (binary)"); ok {
			return Param{Binary: true, Hex: hex, Size: len(hex) / 2}
		}
		if hex, rest, ok := strings.Cut(h, " (binary; as "); ok {
			p := Param{Binary: true, Hex: hex, Size: len(hex) / 2}
			if _, val, ok := strings.Cut(strings.TrimSuffix(rest, ")"), " "); ok {
				if n, err := strconv.ParseInt(val, 10, 64); err == nil {
					p.Int = &n
				}
			}
			return p
		}
	}
	return Param{Text: s, Size: len(s)}
}
