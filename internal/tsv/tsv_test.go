package tsv

import (
	"errors"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	in := "# a comment\n\nid\tvalue \r\na\t 1\n# between\nb\t2\n"
	tab, err := Read(strings.NewReader(in), []string{"id", "value"})
	if err != nil {
		t.Fatal(err)
	}
	if tab.HeaderLine != 3 || len(tab.Rows) != 2 || !tab.Has("value") || tab.Has("note") {
		t.Fatalf("table %+v", tab)
	}
	if r := tab.Rows[0]; r.Line != 4 || r.Get("id") != "a" || r.Get("value") != "1" || r.Get("note") != "" {
		t.Fatalf("row %+v", r)
	}
	if tab.Rows[1].Line != 6 || tab.Rows[1].Get("id") != "b" {
		t.Fatalf("row %+v", tab.Rows[1])
	}
}

func TestReadErrors(t *testing.T) {
	long := "id\tnote\n" + strings.Repeat("x", MaxLine+1) + "\n"
	for _, tc := range []struct{ name, in, want string }{
		{"missing column", "id\tvalue\n", `line 1: header lacks column "note"`},
		{"twice", "id\tid\tnote\n", "line 1: column id: named twice in the header"},
		{"width", "id\tnote\na\tb\tc\n", "line 2: 3 tab-separated fields, the header has 2"},
		{"long line", long, "line 2: bufio.Scanner: token too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), []string{"id", "note"})
			var te *Error
			if !errors.As(err, &te) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
