package native

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Error is a content error in a native workload file: the file, the line,
// the field path (such as "ops[3].outputBytes") and what is wrong with it.
// It wraps ErrFormat and, for a graph that fails validation, the
// workloads error too.
type Error struct {
	// File is the file name given to Parse or ReadFile.
	File string
	// Line is the 1-based line the error was found on (0: not known).
	Line int
	// Path is the field, e.g. "ops[3].outputBytes"; empty for the file.
	Path string
	// Msg says what is wrong, with the valid range where there is one.
	Msg string
	// Err is an underlying error (validation), or nil.
	Err error
}

func (e *Error) Error() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "workload %q: ", e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns ErrFormat and the underlying error, if any.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrFormat, e.Err}
	}
	return []error{ErrFormat}
}

// reader walks the JSON token stream strictly, keeping the field path.
type reader struct {
	file string
	data []byte
	dec  *json.Decoder
}

func newReader(data []byte, file string) *reader {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return &reader{file: file, data: data, dec: d}
}

// line is the 1-based line of byte offset off.
func (r *reader) line(off int64) int {
	if off > int64(len(r.data)) {
		off = int64(len(r.data))
	}
	if off < 0 {
		off = 0
	}
	return 1 + bytes.Count(r.data[:off], []byte{'\n'})
}

// errf is an error at the current position of the decoder.
func (r *reader) errf(path, format string, args ...any) error {
	return &Error{File: r.file, Line: r.line(r.dec.InputOffset()), Path: path, Msg: fmt.Sprintf(format, args...)}
}

// next reads one token; syntax errors and truncation become Errors.
func (r *reader) next(path string) (json.Token, error) {
	tok, err := r.dec.Token()
	if err == nil {
		return tok, nil
	}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, &Error{File: r.file, Line: r.line(se.Offset), Path: path,
			Msg: fmt.Sprintf("JSON syntax error at byte offset %d: %v", se.Offset, se)}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return nil, &Error{File: r.file, Line: r.line(int64(len(r.data))), Path: path,
			Msg: fmt.Sprintf("unexpected end of file after %d bytes (truncated file?)", len(r.data))}
	}
	return nil, &Error{File: r.file, Line: r.line(r.dec.InputOffset()), Path: path, Msg: err.Error()}
}

// describe names a token's JSON type (and shows short values).
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			return "object"
		case '[':
			return "array"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return fmt.Sprintf("string %q", v)
	case json.Number:
		return "number " + string(v)
	case bool:
		return fmt.Sprintf("boolean %t", v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

// object reads an object, calling field for each key with the key's path;
// a key given twice is an error.
func (r *reader) object(path string, field func(key, path string) error) error {
	tok, err := r.next(path)
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return r.errf(path, "want an object, got %s", describe(tok))
	}
	seen := map[string]bool{}
	for r.dec.More() {
		tok, err := r.next(path)
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return r.errf(path, "want a field name, got %s", describe(tok))
		}
		kp := key
		if path != "" {
			kp = path + "." + key
		}
		if seen[key] {
			return r.errf(kp, "field given twice")
		}
		seen[key] = true
		if err := field(key, kp); err != nil {
			return err
		}
	}
	_, err = r.next(path) // the closing brace
	return err
}

// array reads an array, calling elem for each element with its path.
func (r *reader) array(path string, elem func(i int, path string) error) error {
	tok, err := r.next(path)
	if err != nil {
		return err
	}
	if tok != json.Delim('[') {
		return r.errf(path, "want an array, got %s", describe(tok))
	}
	for i := 0; r.dec.More(); i++ {
		if err := elem(i, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	_, err = r.next(path)
	return err
}

func (r *reader) str(path string) (string, error) {
	tok, err := r.next(path)
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", r.errf(path, "want a string, got %s", describe(tok))
	}
	return s, nil
}

func (r *reader) boolean(path string) (bool, error) {
	tok, err := r.next(path)
	if err != nil {
		return false, err
	}
	b, ok := tok.(bool)
	if !ok {
		return false, r.errf(path, "want a boolean (true or false), got %s", describe(tok))
	}
	return b, nil
}

func (r *reader) number(path string) (json.Number, error) {
	tok, err := r.next(path)
	if err != nil {
		return "", err
	}
	n, ok := tok.(json.Number)
	if !ok {
		return "", r.errf(path, "want a number, got %s", describe(tok))
	}
	return n, nil
}

// integer reads an integer in [lo, hi].
func (r *reader) integer(path string, lo, hi int64) (int64, error) {
	n, err := r.number(path)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseInt(string(n), 10, 64)
	if perr != nil || v < lo || v > hi {
		rng := fmt.Sprintf(">= %d", lo)
		if hi != math.MaxInt64 {
			rng = fmt.Sprintf("integer in [%d, %d]", lo, hi)
		}
		if perr == nil {
			return 0, r.errf(path, "%d (valid range: %s)", v, rng)
		}
		if errors.Is(perr, strconv.ErrRange) {
			return 0, r.errf(path, "%s is out of the int64 range (valid range: %s)", n, rng)
		}
		return 0, r.errf(path, "want an integer, got %s (valid range: %s)", n, rng)
	}
	return v, nil
}

// nonNegFloat reads a finite number >= 0.
func (r *reader) nonNegFloat(path string) (float64, error) {
	n, err := r.number(path)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseFloat(string(n), 64)
	if perr != nil || v < 0 || math.IsInf(v, 0) {
		return 0, r.errf(path, "%s (valid range: finite, >= 0)", n)
	}
	return v, nil
}

// end checks that nothing but white space follows the top-level value.
func (r *reader) end() error {
	tok, err := r.dec.Token()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return r.errf("", "after the top-level object: %v", err)
	}
	return r.errf("", "unexpected %s after the top-level object", describe(tok))
}
