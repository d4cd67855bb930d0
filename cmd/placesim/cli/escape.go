package cli

import (
	"bytes"
	"io"
	"strings"
)

// Terminal escaping (issue 31): a workload, device or link name is data
// from a file someone else wrote, and a name holding ESC [ ... sequences
// printed raw can move the cursor, rewrite earlier lines, set the window
// title or worse. As kubectl does (cli-runtime's printers.EscapeTerminal,
// which turns ESC into "^[" and CR into "\r"), placesim shows every
// control character of its text output visibly: C0 controls and DEL in
// caret notation (ESC "^[", CR "^M", BEL "^G", DEL "^?"), C1 controls
// (U+0080 to U+009F, CSI among them) as \u0080...\u009f. Newlines and
// tabs, which the tables are made of, pass.

// EscapeTerminal returns s with its control characters made visible.
func EscapeTerminal(s string) string {
	var b strings.Builder
	w := &escapeWriter{w: &b}
	_, _ = w.Write([]byte(s))
	w.flush()
	return b.String()
}

// escapeWriter escapes control characters on their way to w. A UTF-8
// lead byte of a C1 control at the end of one Write is held until the
// next.
type escapeWriter struct {
	w       io.Writer
	pending bool // a 0xC2 byte held from the previous Write
}

// newEscapeWriter returns w with control characters escaped.
func newEscapeWriter(w io.Writer) io.Writer { return &escapeWriter{w: w} }

func (e *escapeWriter) Write(p []byte) (int, error) {
	var out bytes.Buffer
	out.Grow(len(p) + 8)
	i := 0
	if e.pending {
		e.pending = false
		if len(p) > 0 && p[0] >= 0x80 && p[0] <= 0x9f {
			writeC1(&out, p[0])
			i = 1
		} else {
			out.WriteByte(0xc2)
		}
	}
	for ; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\n' || c == '\t':
			out.WriteByte(c)
		case c < 0x20:
			out.WriteByte('^')
			out.WriteByte(c + 0x40)
		case c == 0x7f:
			out.WriteString("^?")
		case c == 0xc2 && i+1 == len(p):
			e.pending = true
		case c == 0xc2 && p[i+1] >= 0x80 && p[i+1] <= 0x9f:
			writeC1(&out, p[i+1])
			i++
		default:
			out.WriteByte(c)
		}
	}
	if _, err := e.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush writes a held byte.
func (e *escapeWriter) flush() {
	if e.pending {
		e.pending = false
		_, _ = e.w.Write([]byte{0xc2})
	}
}

// writeC1 writes the C1 control U+0080+(b-0x80) as \u00XX.
func writeC1(out *bytes.Buffer, b byte) {
	const hex = "0123456789abcdef"
	out.WriteString(`\u00`)
	out.WriteByte(hex[b>>4])
	out.WriteByte(hex[b&0xf])
}
