package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"placesim/study"
)

// WriteDir writes results.json and table.txt for rows into dir, creating
// it. Each file is written to a temporary name and renamed, so a killed
// run never leaves a half-written file.
func WriteDir(dir string, rows []*study.Outcome) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{"results": rows}); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, "results.json"), js.Bytes()); err != nil {
		return err
	}
	var tb bytes.Buffer
	if err := Table(&tb, rows); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, "table.txt"), tb.Bytes())
}

// WriteFileAtomic writes data to a temporary file beside path and renames
// it into place.
func WriteFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
