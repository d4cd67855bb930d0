package reports

import (
	"encoding/csv"
	"fmt"
	"io"
)

// WriteCSV writes header and rows as RFC 4180 CSV through encoding/csv
// (fields with commas, quotes or line breaks are quoted, quotes doubled):
// the one place placesim writes CSV. Every row must have the header's
// number of fields, so that a reader (Python's csv module, pandas, a
// spreadsheet) sees the same columns on every line.
func WriteCSV(w io.Writer, header []string, rows [][]string) error {
	return WriteCSVFunc(w, header, len(rows), func(i int) []string { return rows[i] })
}

// WriteCSVFunc is WriteCSV for n rows made one at a time by row(i), so
// that a million rows are never held together (issue 31: merge's
// results.csv of 1,000,000 records built every row first).
func WriteCSVFunc(w io.Writer, header []string, n int, row func(i int) []string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	for i := 0; i < n; i++ {
		r := row(i)
		if len(r) != len(header) {
			return fmt.Errorf("write csv: row %d has %d fields, the header %d", i+1, len(r), len(header))
		}
		if err := cw.Write(r); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}
