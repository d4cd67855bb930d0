package native

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// lexer is a strict JSON scanner (RFC 8259) that keeps the line and
// column, so that every error can say where it is. Strings decode as
// encoding/json decodes them (invalid UTF-8 and lone surrogates become
// U+FFFD), so that what Write produces reads back exactly.
type lexer struct {
	data      []byte
	pos       int
	line      int // 1-based line of pos
	lineStart int // offset of the first byte of line
}

func newLexer(data []byte) *lexer { return &lexer{data: data, line: 1} }

// syntaxError describes malformed JSON at the lexer's position.
type syntaxError struct {
	off, line, col int
	msg            string
	eof            bool
}

func (e *syntaxError) Error() string { return e.msg }

func (l *lexer) fail(msg string) *syntaxError {
	return &syntaxError{off: l.pos, line: l.line, col: l.pos - l.lineStart + 1, msg: msg, eof: l.pos >= len(l.data)}
}

// unexpected is the error for the byte at pos, given what was expected.
func (l *lexer) unexpected(want string) *syntaxError {
	if l.pos >= len(l.data) {
		return l.fail("unexpected end of file, want " + want)
	}
	return l.fail(fmt.Sprintf("invalid character %q, want %s", l.data[l.pos], want))
}

// ws skips white space, counting lines.
func (l *lexer) ws() {
	for l.pos < len(l.data) {
		switch l.data[l.pos] {
		case '\n':
			l.line++
			l.lineStart = l.pos + 1
		case ' ', '\t', '\r':
		default:
			return
		}
		l.pos++
	}
}

// peek skips white space and returns the next byte (0 at the end).
func (l *lexer) peek() byte {
	l.ws()
	if l.pos < len(l.data) {
		return l.data[l.pos]
	}
	return 0
}

// expect consumes byte c after white space.
func (l *lexer) expect(c byte, want string) error {
	if l.peek() != c {
		return l.unexpected(want)
	}
	l.pos++
	return nil
}

// literal consumes true, false or null.
func (l *lexer) literal(word string) error {
	if len(l.data)-l.pos < len(word) || string(l.data[l.pos:l.pos+len(word)]) != word {
		if len(l.data)-l.pos < len(word) && string(l.data[l.pos:]) == word[:len(l.data)-l.pos] {
			l.pos = len(l.data)
			return l.fail("unexpected end of file in literal " + word)
		}
		return l.fail("invalid literal, want " + word)
	}
	l.pos += len(word)
	return nil
}

// number consumes a number literal and returns its text.
func (l *lexer) number() (string, error) {
	start := l.pos
	d := l.data
	digits := func() bool {
		s := l.pos
		for l.pos < len(d) && d[l.pos] >= '0' && d[l.pos] <= '9' {
			l.pos++
		}
		return l.pos > s
	}
	if l.pos < len(d) && d[l.pos] == '-' {
		l.pos++
	}
	switch {
	case l.pos < len(d) && d[l.pos] == '0':
		l.pos++
	case !digits():
		return "", l.unexpected("a digit")
	}
	if l.pos < len(d) && d[l.pos] == '.' {
		l.pos++
		if !digits() {
			return "", l.unexpected("a digit after the decimal point")
		}
	}
	if l.pos < len(d) && (d[l.pos] == 'e' || d[l.pos] == 'E') {
		l.pos++
		if l.pos < len(d) && (d[l.pos] == '+' || d[l.pos] == '-') {
			l.pos++
		}
		if !digits() {
			return "", l.unexpected("a digit in the exponent")
		}
	}
	return string(d[start:l.pos]), nil
}

// str consumes a string (the opening quote is at pos) and decodes it.
func (l *lexer) str() (string, error) {
	l.pos++ // opening quote
	d := l.data
	start := l.pos
	for l.pos < len(d) { // fast path: nothing to decode
		c := d[l.pos]
		if c == '"' {
			s := string(d[start:l.pos])
			l.pos++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		l.pos++
	}
	buf := append([]byte(nil), d[start:l.pos]...)
	for {
		if l.pos >= len(d) {
			return "", l.fail("unexpected end of file in a string")
		}
		c := d[l.pos]
		switch {
		case c == '"':
			l.pos++
			return string(buf), nil
		case c < 0x20:
			return "", l.fail(fmt.Sprintf("invalid control character %q in a string (escape it)", c))
		case c == '\\':
			r, err := l.escape()
			if err != nil {
				return "", err
			}
			buf = utf8.AppendRune(buf, r)
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			l.pos++
		default:
			r, size := utf8.DecodeRune(d[l.pos:])
			buf = utf8.AppendRune(buf, r) // RuneError for invalid UTF-8
			l.pos += size
		}
	}
}

// escape decodes one escape sequence at pos (the backslash).
func (l *lexer) escape() (rune, error) {
	d := l.data
	if l.pos+1 >= len(d) {
		l.pos = len(d)
		return 0, l.fail("unexpected end of file in a string escape")
	}
	c := d[l.pos+1]
	l.pos += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := l.hex4()
		if err != nil {
			return 0, err
		}
		if utf16.IsSurrogate(r) {
			if l.pos+1 < len(d) && d[l.pos] == '\\' && d[l.pos+1] == 'u' {
				save := l.pos
				l.pos += 2
				r2, err := l.hex4()
				if err != nil {
					return 0, err
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return dec, nil
				}
				l.pos = save // not a pair: the second escape stands alone
			}
			return utf8.RuneError, nil
		}
		return r, nil
	}
	l.pos--
	return 0, l.fail(fmt.Sprintf("invalid escape \\%c in a string", c))
}

func (l *lexer) hex4() (rune, error) {
	if len(l.data)-l.pos < 4 {
		l.pos = len(l.data)
		return 0, l.fail("unexpected end of file in a \\u escape")
	}
	v, err := strconv.ParseUint(string(l.data[l.pos:l.pos+4]), 16, 32)
	if err != nil {
		return 0, l.fail(fmt.Sprintf("invalid \\u escape %q", l.data[l.pos:l.pos+4]))
	}
	l.pos += 4
	return rune(v), nil
}

// skipValue consumes any value and describes it (for type errors).
func (l *lexer) skipValue(depth int) (string, error) {
	if depth > 1000 {
		return "", l.fail("nesting deeper than 1000")
	}
	switch c := l.peek(); {
	case c == '{' || c == '[':
		end := byte('}')
		kind := "object"
		if c == '[' {
			end, kind = ']', "array"
		}
		l.pos++
		if l.peek() == end {
			l.pos++
			return kind, nil
		}
		for {
			if c == '{' {
				if l.peek() != '"' {
					return "", l.unexpected("a field name")
				}
				if _, err := l.str(); err != nil {
					return "", err
				}
				if err := l.expect(':', "':' after a field name"); err != nil {
					return "", err
				}
			}
			if _, err := l.skipValue(depth + 1); err != nil {
				return "", err
			}
			switch l.peek() {
			case ',':
				l.pos++
			case end:
				l.pos++
				return kind, nil
			default:
				return "", l.unexpected(fmt.Sprintf("',' or '%c'", end))
			}
		}
	case c == '"':
		s, err := l.str()
		if len(s) > 40 {
			s = s[:40] + "..."
		}
		return fmt.Sprintf("string %q", s), err
	case c == '-' || (c >= '0' && c <= '9'):
		n, err := l.number()
		return "number " + n, err
	case c == 't':
		return "boolean true", l.literal("true")
	case c == 'f':
		return "boolean false", l.literal("false")
	case c == 'n':
		return "null", l.literal("null")
	}
	return "", l.unexpected("a JSON value")
}
