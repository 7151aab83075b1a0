package capture

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pginterleave/interleave/artifact"
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

// DecodeParams reads bind values or function arguments with their format
// codes (none means all text, one applies to all, else one per value) into
// the record's structured form. Each value keeps at most
// artifact.MaxParamBytes bytes.
func DecodeParams[F int16 | uint16](values [][]byte, formats []F) []artifact.Param {
	out := make([]artifact.Param, len(values))
	for i, v := range values {
		binaryFmt := false
		switch len(formats) {
		case 0:
		case 1:
			binaryFmt = formats[0] == 1
		default:
			binaryFmt = i < len(formats) && formats[i] == 1
		}
		out[i] = decodeParam(v, binaryFmt)
	}
	return out
}

func decodeParam(v []byte, binaryFmt bool) artifact.Param {
	if v == nil {
		return artifact.Param{Null: true}
	}
	p := artifact.Param{Binary: binaryFmt, Size: len(v)}
	if !binaryFmt && utf8.Valid(v) {
		cut := min(len(v), artifact.MaxParamBytes)
		for cut < len(v) && cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		p.Text = string(v[:cut])
		return p
	}
	p.Hex = hex.EncodeToString(v[:min(len(v), artifact.MaxParamBytes)])
	if binaryFmt {
		switch len(v) {
		case 4:
			n := int64(int32(binary.BigEndian.Uint32(v)))
			p.Int = &n
		case 8:
			n := int64(binary.BigEndian.Uint64(v))
			p.Int = &n
		}
	}
	return p
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
