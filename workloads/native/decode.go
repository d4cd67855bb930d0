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

// reader walks the JSON text strictly with encoding/json's token stream,
// keeping the field path and the line of the value being read.
type reader struct {
	file string
	data []byte
	dec  *json.Decoder
	// valLine is the line where the last value read began.
	valLine int
	// pos is the offset of the next value (after white space, ':' and
	// ','), set by start.
	pos int
	// lineOff and lineNo memoise line counting: offset lineOff is on line
	// lineNo. Offsets only grow while reading, so counting is linear.
	lineOff   int
	lineNo    int
	lineStart int // offset of the first byte of line lineNo
}

func newReader(data []byte, file string) *reader {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return &reader{file: file, data: data, dec: d, valLine: 1, lineNo: 1}
}

// lineCol is the 1-based line and column of byte offset off.
func (r *reader) lineCol(off int) (line, col int) {
	off = min(max(off, 0), len(r.data))
	if off < r.lineOff { // only for an error behind the reading position
		r.lineOff, r.lineNo, r.lineStart = 0, 1, 0
	}
	seg := r.data[r.lineOff:off]
	if n := bytes.Count(seg, []byte{'\n'}); n > 0 {
		r.lineNo += n
		r.lineStart = r.lineOff + bytes.LastIndexByte(seg, '\n') + 1
	}
	r.lineOff = off
	return r.lineNo, off - r.lineStart + 1
}

// errf is an error about the value read last.
func (r *reader) errf(path, format string, args ...any) error {
	return &Error{File: r.file, Line: r.valLine, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// syntax turns a decoder error into an Error at path: a truncated file or
// malformed JSON with its line, column and byte offset.
func (r *reader) syntax(path string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		line, _ := r.lineCol(len(r.data))
		return &Error{File: r.file, Line: line, Path: path,
			Msg: fmt.Sprintf("unexpected end of file after %d bytes (truncated file?)", len(r.data))}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(min(max(se.Offset, 0), int64(len(r.data))))
		line, col := r.lineCol(off)
		return &Error{File: r.file, Line: line, Path: path,
			Msg: fmt.Sprintf("JSON syntax error at byte offset %d, column %d: %s", off, col, se.Error())}
	}
	return &Error{File: r.file, Line: r.valLine, Path: path, Msg: err.Error()}
}

// start finds the next value (skipping white space and the ':' or ','
// before it), records its line and returns its first byte (0 at the end).
func (r *reader) start() byte {
	p := int(r.dec.InputOffset())
	for p < len(r.data) {
		switch r.data[p] {
		case ' ', '\t', '\r', '\n', ':', ',':
			p++
			continue
		}
		break
	}
	r.pos = p
	r.valLine, _ = r.lineCol(p)
	if p < len(r.data) {
		return r.data[p]
	}
	return 0
}

// token reads the next token, turning errors into Errors at path.
func (r *reader) token(path string) (json.Token, error) {
	tok, err := r.dec.Token()
	if err != nil {
		return nil, r.syntax(path, err)
	}
	return tok, nil
}

// describe consumes the value that begins with c and says what it is
// (for type errors).
func (r *reader) describe(path string, c byte) (string, error) {
	if c == '{' || c == '[' {
		var skip json.RawMessage
		if err := r.dec.Decode(&skip); err != nil {
			return "", r.syntax(path, err)
		}
		if c == '{' {
			return "object", nil
		}
		return "array", nil
	}
	tok, err := r.token(path)
	if err != nil {
		return "", err
	}
	switch v := tok.(type) {
	case string:
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return fmt.Sprintf("string %q", v), nil
	case json.Number:
		return "number " + string(v), nil
	case bool:
		return fmt.Sprintf("boolean %t", v), nil
	case nil:
		return "null", nil
	}
	return fmt.Sprintf("%v", tok), nil
}

// mismatch reports a value of the wrong JSON type, describing it.
func (r *reader) mismatch(path, want string, c byte) error {
	line := r.valLine
	got, err := r.describe(path, c)
	if err != nil {
		return err
	}
	r.valLine = line
	return r.errf(path, "want %s, got %s", want, got)
}

// object reads an object, calling field for each key with the key's path;
// a key given twice is an error.
func (r *reader) object(path string, field func(key, path string) error) error {
	if c := r.start(); c != '{' {
		return r.mismatch(path, "an object", c)
	}
	if _, err := r.token(path); err != nil {
		return err
	}
	var few []string         // the keys seen, while there are few
	var many map[string]bool // then all of them: linear in the keys
	for r.dec.More() {
		r.start()
		tok, err := r.token(path)
		if err != nil {
			return err
		}
		key, _ := tok.(string) // the decoder refuses a key that is not a string
		kp := key
		if path != "" {
			kp = path + "." + key
		}
		dup := many[key]
		if many == nil {
			for _, k := range few {
				dup = dup || k == key
			}
		}
		if dup {
			return r.errf(kp, "field given twice")
		}
		if many == nil && len(few) < 16 {
			few = append(few, key)
		} else {
			if many == nil {
				many = make(map[string]bool, 2*len(few))
				for _, k := range few {
					many[k] = true
				}
			}
			many[key] = true
		}
		if err := field(key, kp); err != nil {
			return err
		}
	}
	_, err := r.token(path)
	return err
}

// array reads an array, calling elem for each element with its path.
func (r *reader) array(path string, elem func(i int, path string) error) error {
	if c := r.start(); c != '[' {
		return r.mismatch(path, "an array", c)
	}
	if _, err := r.token(path); err != nil {
		return err
	}
	for i := 0; r.dec.More(); i++ {
		if err := elem(i, path+"["+strconv.Itoa(i)+"]"); err != nil {
			return err
		}
	}
	_, err := r.token(path)
	return err
}

func (r *reader) str(path string) (string, error) {
	if c := r.start(); c != '"' {
		return "", r.mismatch(path, "a string", c)
	}
	tok, err := r.token(path)
	if err != nil {
		return "", err
	}
	s, _ := tok.(string)
	return s, nil
}

func (r *reader) boolean(path string) (bool, error) {
	if c := r.start(); c != 't' && c != 'f' {
		return false, r.mismatch(path, "a boolean (true or false)", c)
	}
	tok, err := r.token(path)
	if err != nil {
		return false, err
	}
	b, _ := tok.(bool)
	return b, nil
}

func (r *reader) number(path string) (string, error) {
	if c := r.start(); c != '-' && (c < '0' || c > '9') {
		return "", r.mismatch(path, "a number", c)
	}
	tok, err := r.token(path)
	if err != nil {
		return "", err
	}
	n, _ := tok.(json.Number)
	return string(n), nil
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
	p := int(r.dec.InputOffset())
	for p < len(r.data) && (r.data[p] == ' ' || r.data[p] == '\t' || r.data[p] == '\r' || r.data[p] == '\n') {
		p++
	}
	if p >= len(r.data) {
		return nil
	}
	r.pos = p
	r.valLine, _ = r.lineCol(p)
	what, err := r.describe("", r.data[p])
	if err != nil {
		what = fmt.Sprintf("%q", r.data[p:min(p+10, len(r.data))])
	}
	return r.errf("", "unexpected %s after the top-level object", what)
}
