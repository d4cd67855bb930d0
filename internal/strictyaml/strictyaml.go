// Package strictyaml decodes the YAML (or JSON) files that people write
// for placesim (cluster files, scenarios) strictly: an unknown field is an
// error, so that a typo never becomes a silent default, and an empty file
// says what it should hold instead of "EOF".
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"placesim/internal/suggest"
)

// Decode decodes the one document of data into v, refusing unknown
// fields and a second document (a file of several "---" documents would
// otherwise be read up to its first one silently). want describes what a file of this kind holds, for the error on
// an empty file (e.g. "name, devices and links; see the README's cluster
// files").
func Decode(data []byte, v any, want string) error {
	// a document that is only null ("---", "null", "~") holds nothing
	// either: say so rather than report the first missing field
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && nullDocument(&doc) {
		return fmt.Errorf("the file is empty (want %s)", want)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("the file is empty (want %s)", want)
		}
		var te *yaml.TypeError
		if errors.As(err, &te) {
			fields := fieldNames(reflect.TypeOf(v))
			msgs := make([]string, len(te.Errors))
			for i, m := range te.Errors {
				msgs[i] = redact(unknownField(m, fields))
			}
			return fmt.Errorf("%s", strings.Join(msgs, "; "))
		}
		return err
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return fmt.Errorf("after the first YAML document: %w", err)
	case nullDocument(&next):
		return nil // a trailing "---" holds nothing
	default:
		return fmt.Errorf("line %d: a second YAML document (valid: one document per file)", next.Line)
	}
}

// quoted matches the file's text that yaml.v3 quotes in its errors
// (cannot unmarshal !!str `root:x:...`).
var quoted = regexp.MustCompile("`[^`]*`")

// redact removes the file's own text from a decoder message: a scenario or
// flag may name a file that is not a cluster or scenario at all
// (/etc/passwd), and its first line must not travel into messages and
// results (issue 31). The line number and the YAML type stay.
func redact(msg string) string {
	return quoted.ReplaceAllString(msg, "a value")
}

// nullDocument reports whether doc is empty or a single null scalar.
func nullDocument(doc *yaml.Node) bool {
	if doc.Kind == 0 {
		return true
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return false
	}
	n := doc.Content[0]
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// notFound is yaml.v3's message for an unknown field under KnownFields.
var notFound = regexp.MustCompile(`^(line \d+): field (\S+) not found in type (\S+)$`)

// unknownField rewrites yaml.v3's "line N: field X not found in type
// pkg.Type" for a person: the valid fields of that place in the file and
// the closest one, never a Go type name.
func unknownField(msg string, fields map[string][]string) string {
	m := notFound.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	valid, ok := fields[m[3]]
	if !ok {
		return fmt.Sprintf("%s: unknown field %q", m[1], m[2])
	}
	return fmt.Sprintf("%s: unknown field %q (valid: %s)%s", m[1], m[2], strings.Join(valid, ", "), suggest.DidYouMean(m[2], valid))
}

// fieldNames maps every struct type reachable from t (as yaml.v3 names
// it, "pkg.Type") to its YAML field names, in declaration order.
func fieldNames(t reflect.Type) map[string][]string {
	out := map[string][]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			return
		}
		if _, seen := out[t.String()]; seen {
			return
		}
		out[t.String()] = nil
		out[t.String()] = structFields(t, walk)
	}
	walk(t)
	return out
}

// structFields is t's YAML field names (inline structs' included),
// walking each field's type on the way.
func structFields(t reflect.Type, walk func(reflect.Type)) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				names = append(names, structFields(ft, walk)...)
				continue
			}
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		names = append(names, name)
		walk(f.Type)
	}
	return names
}
