package native

import (
	"bytes"
	"errors"
	"fmt"
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

// reader walks the JSON text strictly, keeping the field path.
type reader struct {
	file string
	lex  *lexer
	// valLine is the line where the last value read began.
	valLine int
}

func newReader(data []byte, file string) *reader {
	return &reader{file: file, lex: newLexer(data), valLine: 1}
}

// line is the 1-based line of byte offset off.
func (r *reader) line(off int64) int {
	d := r.lex.data
	off = min(max(off, 0), int64(len(d)))
	return 1 + bytes.Count(d[:off], []byte{'\n'})
}

// errf is an error about the value read last.
func (r *reader) errf(path, format string, args ...any) error {
	return &Error{File: r.file, Line: r.valLine, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// syntax turns a lexer error into an Error at path.
func (r *reader) syntax(path string, err error) error {
	se, ok := err.(*syntaxError)
	if !ok {
		return err
	}
	if se.eof {
		return &Error{File: r.file, Line: se.line, Path: path,
			Msg: fmt.Sprintf("unexpected end of file after %d bytes (truncated file?): %s", len(r.lex.data), se.msg)}
	}
	return &Error{File: r.file, Line: se.line, Path: path,
		Msg: fmt.Sprintf("JSON syntax error at byte offset %d, column %d: %s", se.off, se.col, se.msg)}
}

// start skips to the next value and records its line.
func (r *reader) start() byte {
	c := r.lex.peek()
	r.valLine = r.lex.line
	return c
}

// mismatch reports a value of the wrong JSON type, describing it.
func (r *reader) mismatch(path, want string) error {
	line := r.lex.line
	got, err := r.lex.skipValue(0)
	if err != nil {
		return r.syntax(path, err)
	}
	r.valLine = line
	return r.errf(path, "want %s, got %s", want, got)
}

// object reads an object, calling field for each key with the key's path;
// a key given twice is an error.
func (r *reader) object(path string, field func(key, path string) error) error {
	if r.start() != '{' {
		return r.mismatch(path, "an object")
	}
	r.lex.pos++
	var seen []string
	if r.lex.peek() == '}' {
		r.lex.pos++
		return nil
	}
	for {
		if r.start() != '"' {
			return r.syntax(path, r.lex.unexpected("a field name"))
		}
		key, err := r.lex.str()
		if err != nil {
			return r.syntax(path, err)
		}
		kp := key
		if path != "" {
			kp = path + "." + key
		}
		for _, k := range seen {
			if k == key {
				return r.errf(kp, "field given twice")
			}
		}
		seen = append(seen, key)
		if err := r.lex.expect(':', "':' after a field name"); err != nil {
			return r.syntax(kp, err)
		}
		if err := field(key, kp); err != nil {
			return err
		}
		switch r.lex.peek() {
		case ',':
			r.lex.pos++
		case '}':
			r.lex.pos++
			return nil
		default:
			return r.syntax(path, r.lex.unexpected("',' or '}'"))
		}
	}
}

// array reads an array, calling elem for each element with its path.
func (r *reader) array(path string, elem func(i int, path string) error) error {
	if r.start() != '[' {
		return r.mismatch(path, "an array")
	}
	r.lex.pos++
	if r.lex.peek() == ']' {
		r.lex.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i, path+"["+strconv.Itoa(i)+"]"); err != nil {
			return err
		}
		switch r.lex.peek() {
		case ',':
			r.lex.pos++
		case ']':
			r.lex.pos++
			return nil
		default:
			return r.syntax(path, r.lex.unexpected("',' or ']'"))
		}
	}
}

func (r *reader) str(path string) (string, error) {
	if r.start() != '"' {
		return "", r.mismatch(path, "a string")
	}
	s, err := r.lex.str()
	if err != nil {
		return "", r.syntax(path, err)
	}
	return s, nil
}

func (r *reader) boolean(path string) (bool, error) {
	switch r.start() {
	case 't':
		return true, r.syntax(path, r.lex.literal("true"))
	case 'f':
		return false, r.syntax(path, r.lex.literal("false"))
	}
	return false, r.mismatch(path, "a boolean (true or false)")
}

func (r *reader) number(path string) (string, error) {
	if c := r.start(); c != '-' && (c < '0' || c > '9') {
		return "", r.mismatch(path, "a number")
	}
	n, err := r.lex.number()
	if err != nil {
		return "", r.syntax(path, err)
	}
	return n, nil
}

// integer reads an integer in [lo, hi].
func (r *reader) integer(path string, lo, hi int64) (int64, error) {
	n, err := r.number(path)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseInt(n, 10, 64)
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
	v, perr := strconv.ParseFloat(n, 64)
	if perr != nil || v < 0 || math.IsInf(v, 0) {
		return 0, r.errf(path, "%s (valid range: finite, >= 0)", n)
	}
	return v, nil
}

// end checks that nothing but white space follows the top-level value.
func (r *reader) end() error {
	if r.start() == 0 && r.lex.pos >= len(r.lex.data) {
		return nil
	}
	what, err := r.lex.skipValue(0)
	if err != nil {
		what = fmt.Sprintf("%q", r.lex.data[r.lex.pos:min(r.lex.pos+10, len(r.lex.data))])
	}
	return r.errf("", "unexpected %s after the top-level object", what)
}
