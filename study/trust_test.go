package study_test

import (
	"os"
	"strings"
	"testing"

	"placesim/study"
)

// readmeTrustTable returns the cells of the first table under README's
// "## Trust boundary" heading, its header first, each cell trimmed, with
// backticks dropped and an escaped \| read as |.
func readmeTrustTable(t *testing.T, readme string) [][]string {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Trust boundary\n")
	if !ok {
		t.Fatalf("%s: no \"## Trust boundary\" section", readme)
	}
	var rows [][]string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break // the table's end
			}
			if strings.HasPrefix(line, "## ") {
				break // the next section, with no table before it
			}
			continue
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
		line = strings.ReplaceAll(line, `\|`, "\x00")
		var cells []string
		for _, c := range strings.Split(line, "|") {
			c = strings.ReplaceAll(strings.ReplaceAll(c, "\x00", "|"), "`", "")
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no table under \"## Trust boundary\"", readme)
	}
	return rows
}

// TestTrustBoundaryREADME: README's trust table is study.TrustBoundary(),
// a row per rule in its order: the setting, the sources (Source names,
// comma-separated) and the note, so that neither is changed without the
// other.
func TestTrustBoundaryREADME(t *testing.T) {
	const readme = "../README.md"
	rows := readmeTrustTable(t, readme)
	if want := []string{"setting", "may come from", "how"}; strings.Join(rows[0], "|") != strings.Join(want, "|") {
		t.Fatalf("%s: trust table header %q, want %q", readme, rows[0], want)
	}
	rules := study.TrustBoundary()
	rows = rows[1:]
	for i, r := range rules {
		var src []string
		for _, s := range r.Sources {
			src = append(src, string(s))
		}
		want := []string{r.Setting, strings.Join(src, ", "), r.Note}
		if i >= len(rows) {
			t.Errorf("%s: trust table lacks row %d, TrustBoundary's %q", readme, i+1, want)
			continue
		}
		if got := rows[i]; strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("%s: trust table row %d\n  is   %q\n  want %q (TrustBoundary()[%d], backticks aside)", readme, i+1, got, want, i)
		}
	}
	for i := len(rules); i < len(rows); i++ {
		t.Errorf("%s: trust table row %d %q is not in TrustBoundary()", readme, i+1, rows[i])
	}
}
