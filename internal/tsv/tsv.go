// Package tsv reads the project's tab-separated data files (the
// validation sets of validation/ and ../shared/fidelity/): a header line
// naming the columns in any order, one record a line, blank lines and
// lines starting with '#' skipped. It checks the table's shape (required
// columns, no column named twice, every line as wide as the header); the
// callers check each field's meaning and range.
package tsv

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// MaxLine is the longest line read (1 MiB): a longer one is an error, not
// a truncated record.
const MaxLine = 1 << 20

// Error is a malformed table: the 1-based line, the column when one is to
// blame ("" for the line as a whole) and what is wrong.
type Error struct {
	Line   int
	Column string
	Msg    string
}

func (e *Error) Error() string {
	if e.Column != "" {
		return fmt.Sprintf("line %d: column %s: %s", e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Table is a file read whole.
type Table struct {
	// Header holds the column names as written (trimmed), HeaderLine its
	// line number.
	Header     []string
	HeaderLine int
	// Rows holds the records in file order.
	Rows  []Row
	index map[string]int
}

// Row is one record: its line number and its fields.
type Row struct {
	Line   int
	fields []string
	index  map[string]int
}

// Get returns the named column's field, trimmed of spaces; "" when the
// table has no such column.
func (r Row) Get(col string) string {
	if i, ok := r.index[col]; ok {
		return strings.TrimSpace(r.fields[i])
	}
	return ""
}

// Has reports whether the table has the named column.
func (t *Table) Has(col string) bool {
	_, ok := t.index[col]
	return ok
}

// Read reads a table from r. required lists the columns the header must
// name; a missing one, a column named twice, or a line whose field count
// differs from the header's is an *Error. An empty input is a table
// without header or rows.
func Read(r io.Reader, required []string) (*Table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	t := &Table{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if t.index == nil {
			t.HeaderLine, t.index = line, make(map[string]int, len(fields))
			for i, h := range fields {
				h = strings.TrimSpace(h)
				if _, dup := t.index[h]; dup {
					return nil, &Error{Line: line, Column: h, Msg: "named twice in the header"}
				}
				t.index[h] = i
				t.Header = append(t.Header, h)
			}
			for _, c := range required {
				if _, ok := t.index[c]; !ok {
					return nil, &Error{Line: line, Msg: fmt.Sprintf("header lacks column %q (columns: %s, tab-separated)", c, strings.Join(required, ", "))}
				}
			}
			continue
		}
		if len(fields) != len(t.Header) {
			return nil, &Error{Line: line, Msg: fmt.Sprintf("%d tab-separated fields, the header has %d", len(fields), len(t.Header))}
		}
		t.Rows = append(t.Rows, Row{Line: line, fields: fields, index: t.index})
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{Line: line + 1, Msg: err.Error()}
	}
	return t, nil
}
