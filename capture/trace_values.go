package capture

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// safeDecode runs a pgproto3 decoder on untrusted bytes: a decoder that
// panics on them yields an error, never a crash.
func safeDecode(m interface{ Decode([]byte) error }, body []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("does not decode (%v)", r)
		}
	}()
	return m.Decode(body)
}

func undecodable(from string, at int64, n int, why string) Message {
	return Message{AtUS: at, From: from, Type: "undecodable", Length: n, Undecodable: true, Detail: why}
}

// decodeFailed is a message of type typ and n bytes whose body did not
// decode.
func decodeFailed(from string, at int64, n int, typ byte, err error) Message {
	return undecodable(from, at, n, fmt.Sprintf("%s: %v", typeByte(typ), err))
}

func typeByte(b byte) string {
	if b >= 0x21 && b <= 0x7e {
		return "'" + string(rune(b)) + "'"
	}
	return fmt.Sprintf("0x%02x", b)
}

func strPtr(s string) *string { return &s }

// renderValues shows bind values or function arguments with their format
// codes: none means all text, one applies to all, else one per value.
func renderValues[F int16 | uint16](values [][]byte, formats []F) []string {
	out := make([]string, len(values))
	for i, p := range values {
		binaryFmt := false
		switch len(formats) {
		case 0:
		case 1:
			binaryFmt = formats[0] == 1
		default:
			binaryFmt = i < len(formats) && formats[i] == 1
		}
		out[i] = renderValue(p, binaryFmt)
	}
	return out
}

// maxValue bounds a rendered parameter value.
const maxValue = 200

// renderValue shows one value: text-format values as quoted text, binary
// ones (and text that is not UTF-8) as hex, with a reading as an integer
// for 4 and 8 bytes, NULL as NULL.
func renderValue(p []byte, binaryFmt bool) string {
	if p == nil {
		return "NULL"
	}
	if !binaryFmt && utf8.Valid(p) {
		if len(p) > maxValue {
			cut := maxValue
			for cut > 0 && !utf8.RuneStart(p[cut]) {
				cut--
			}
			return strconv.Quote(string(p[:cut])) + fmt.Sprintf("… (%d bytes)", len(p))
		}
		return strconv.Quote(string(p))
	}
	s := hexValue(p)
	switch {
	case !binaryFmt:
		return s + " (text, not UTF-8)"
	case len(p) == 4:
		// As the artifact renders them (unitsql.go): drivers send integers
		// this way.
		return s + " (binary; as int4 " + strconv.Itoa(int(int32(binary.BigEndian.Uint32(p)))) + ")"
	case len(p) == 8:
		return s + " (binary; as int8 " + strconv.FormatInt(int64(binary.BigEndian.Uint64(p)), 10) + ")"
	}
	return s + " (binary)"
}

// hexValue shows p as \x and hex digits, cut at maxValue/2 bytes.
func hexValue(p []byte) string {
	const digits = "0123456789abcdef"
	show := p
	if len(show) > maxValue/2 {
		show = show[:maxValue/2]
	}
	h := make([]byte, 2*len(show))
	for i, c := range show {
		h[2*i], h[2*i+1] = digits[c>>4], digits[c&15]
	}
	s := `\x` + string(h)
	if len(show) < len(p) {
		s += fmt.Sprintf("… (%d bytes)", len(p))
	}
	return s
}

func formatCodes(codes []int16) string {
	parts := make([]string, len(codes))
	for i, c := range codes {
		switch c {
		case 0:
			parts[i] = "text"
		case 1:
			parts[i] = "binary"
		default:
			parts[i] = strconv.Itoa(int(c))
		}
	}
	return strings.Join(parts, ", ")
}

// typeNames names the built-in types a trace meets most.
var typeNames = map[uint32]string{
	0: "unspecified", 16: "bool", 17: "bytea", 18: "char", 19: "name", 20: "int8", 21: "int2", 23: "int4",
	25: "text", 26: "oid", 114: "json", 700: "float4", 701: "float8", 1042: "bpchar", 1043: "varchar",
	1082: "date", 1083: "time", 1114: "timestamp", 1184: "timestamptz", 1186: "interval", 1700: "numeric",
	2950: "uuid", 3802: "jsonb", 1007: "int4[]", 1016: "int8[]", 1009: "text[]",
}

func typeName(oid uint32) string {
	if n, ok := typeNames[oid]; ok {
		return n
	}
	return "oid " + strconv.FormatUint(uint64(oid), 10)
}

// parameterTypes names the parameter types of a Parse or a
// ParameterDescription.
func parameterTypes(oids []uint32) string {
	if len(oids) == 0 {
		return "no parameters"
	}
	names := make([]string, len(oids))
	for i, o := range oids {
		names[i] = typeName(o)
	}
	return "parameter types " + strings.Join(names, ", ")
}
