package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
)

// CheckOutput reports whether an output file of WriteDir is whole: JSON,
// CSV, PNG and SVG files must parse, report.html must end with </html> and
// table.txt with the table's bottom border. Scripts and tests use it to
// check a directory after a run was killed.
func CheckOutput(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	bad := func(why string, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %s: %w", path, why, err)
		}
		return fmt.Errorf("%s: %s", path, why)
	}
	switch ext := filepath.Ext(path); ext {
	case ".json":
		var v any // an object (results.json) or an array (results.timings.json)
		if err := json.Unmarshal(data, &v); err != nil {
			return bad("JSON does not parse", err)
		}
	case ".csv":
		recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			return bad("CSV does not parse", err)
		}
		if len(recs) < 1 {
			return bad("CSV has no header", nil)
		}
	case ".png":
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			return bad("PNG does not decode", err)
		}
	case ".svg":
		var v struct{ XMLName xml.Name }
		if err := xml.Unmarshal(data, &v); err != nil {
			return bad("SVG does not parse", err)
		}
		if v.XMLName.Local != "svg" || !bytes.HasSuffix(bytes.TrimSpace(data), []byte("</svg>")) {
			return bad("not a whole <svg> document", nil)
		}
	case ".html":
		if !bytes.HasSuffix(bytes.TrimSpace(data), []byte("</html>")) {
			return bad("HTML does not end with </html>", nil)
		}
	case ".txt":
		if !bytes.HasSuffix(bytes.TrimSpace(data), []byte("┘")) {
			return bad("table does not end with its bottom border", nil)
		}
	default:
		return bad(fmt.Sprintf("not an output file of WriteDir (extension %q)", ext), nil)
	}
	return nil
}
