package report

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/pginterleave/interleave/artifact"
)

// schemaNode describes, for the page's validator (assets/validate.js), what
// encoding/json accepts for one Go type of the artifact. It is derived from
// artifact.Artifact by reflection, so a field added to the artifact is known
// to the page without a second hand-written schema.
type schemaNode struct {
	// Kind is object, array, map, string, bool, int, number, time or any
	// (json.RawMessage: any JSON value).
	Kind string `json:"kind"`
	// Fields are an object's members by JSON name.
	Fields map[string]*schemaNode `json:"fields,omitempty"`
	// Order lists Fields in the Go struct's order, for stable messages.
	Order []string `json:"order,omitempty"`
	// Of is the element type of an array or the value type of a map.
	Of *schemaNode `json:"of,omitempty"`
	// Bits and Unsigned bound an integer.
	Bits     int  `json:"bits,omitempty"`
	Unsigned bool `json:"unsigned,omitempty"`
	// Nullable is true for a pointer: the page keeps its absence as null.
	Nullable bool `json:"nullable,omitempty"`
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// artifactSchema is the schema of artifact.Artifact.
func artifactSchema() (*schemaNode, error) {
	return schemaOf(reflect.TypeFor[artifact.Artifact](), "Artifact")
}

// schemaOf describes t; path names it in an error about a type the page
// does not know how to check.
func schemaOf(t reflect.Type, path string) (*schemaNode, error) {
	switch {
	case t == timeType:
		return &schemaNode{Kind: "time"}, nil
	case t == rawType:
		return &schemaNode{Kind: "any"}, nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		n, err := schemaOf(t.Elem(), path)
		if err != nil {
			return nil, err
		}
		c := *n
		c.Nullable = true
		return &c, nil
	case reflect.String:
		return &schemaNode{Kind: "string"}, nil
	case reflect.Bool:
		return &schemaNode{Kind: "bool"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &schemaNode{Kind: "int", Bits: t.Bits()}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &schemaNode{Kind: "int", Bits: t.Bits(), Unsigned: true}, nil
	case reflect.Float32, reflect.Float64:
		return &schemaNode{Kind: "number"}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, fmt.Errorf("%s: byte slices are not supported by the page's validator", path)
		}
		of, err := schemaOf(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		return &schemaNode{Kind: "array", Of: of}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("%s: only maps with string keys are supported", path)
		}
		of, err := schemaOf(t.Elem(), path+"{}")
		if err != nil {
			return nil, err
		}
		return &schemaNode{Kind: "map", Of: of}, nil
	case reflect.Struct:
		return structSchema(t, path)
	}
	return nil, fmt.Errorf("%s: the page's validator does not know Go kind %s", path, t.Kind())
}

func structSchema(t reflect.Type, path string) (*schemaNode, error) {
	n := &schemaNode{Kind: "object", Fields: map[string]*schemaNode{}}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous {
			return nil, fmt.Errorf("%s.%s: embedded fields are not supported", path, f.Name)
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs, err := schemaOf(f.Type, path+"."+name)
		if err != nil {
			return nil, err
		}
		n.Fields[name] = fs
		n.Order = append(n.Order, name)
	}
	return n, nil
}
