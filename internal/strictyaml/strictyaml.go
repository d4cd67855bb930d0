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
	"strings"

	"gopkg.in/yaml.v3"
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
			return fmt.Errorf("%s", strings.Join(te.Errors, "; "))
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
