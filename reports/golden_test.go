package reports_test

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"placesim/reports"
	"placesim/study"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestGolden checks the table, CSV and JSON of a fixed comparison (with an
// OOM run, a failing, a panicking and a timed-out placer) against
// testdata/*.golden; go test -update rewrites them.
func TestGolden(t *testing.T) {
	t.Parallel()
	rows, _ := fixture(t, true)
	tests := []struct {
		file   string
		render func(io.Writer, []*study.Record) error
	}{
		{"table.golden", reports.TableText},
		{"results.csv.golden", reports.CSV},
		{"results.json.golden", reports.JSON},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.render(&buf, rows); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.file)
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), buf.String()); diff != "" {
				t.Errorf("%s differs from the golden file (-want +got):\n%s", tc.file, diff)
			}
		})
	}
}

// TestOrderIndependent checks that the reports sort rows themselves: any
// input order gives the same bytes.
func TestOrderIndependent(t *testing.T) {
	t.Parallel()
	rows, _ := fixture(t, true)
	rev := make([]*study.Record, len(rows))
	for i, o := range rows {
		rev[len(rows)-1-i] = o
	}
	for name, f := range map[string]func(io.Writer, []*study.Record) error{
		"table": reports.TableText, "csv": reports.CSV, "json": reports.JSON,
	} {
		t.Run(name, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := f(&a, rows); err != nil {
				t.Fatal(err)
			}
			if err := f(&b, rev); err != nil {
				t.Fatal(err)
			}
			if a.String() != b.String() {
				t.Fatal("output depends on the order of the rows")
			}
		})
	}
}
