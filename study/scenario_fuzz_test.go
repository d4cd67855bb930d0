package study_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"placesim/placers/builtin"
	"placesim/study"
)

// FuzzParseScenario checks that a scenario file never panics the parser
// or the expansion into points, and that an accepted scenario expands
// into points or a clear error. Seeds: the shipped scenarios.
func FuzzParseScenario(f *testing.F) {
	files, _ := filepath.Glob("../scenarios/*.yaml")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"name: s\nworkloads: [\"zoo:mlp\"]\nclusters: [4xV100-pcie]\nplacers: [single, round-robin]\n",
		"name: v\nworkloads: [\"zoo:mlp\"]\nclusters: [4xV100-pcie]\nvary: {param: batch, range: \"1..64:4\"}\n",
		"name: \"\"\n",
		"",
	} {
		f.Add([]byte(s))
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := study.ParseScenario(data)
		if err != nil {
			return
		}
		if s == nil {
			t.Fatal("no scenario and no error")
		}
		if err := s.Validate(reg); err != nil {
			return
		}
		pts, err := s.Points(reg)
		if err == nil && len(pts) == 0 {
			t.Fatal("a valid scenario with no points and no error")
		}
		var b bytes.Buffer
		for _, p := range pts {
			b.WriteString(p.Key())
		}
	})
}

// FuzzReadResults checks that a results (baseline) file never panics the
// reader or the comparison that placesim check makes with it.
func FuzzReadResults(f *testing.F) {
	f.Add([]byte(`{"scenario": {"name": "s", "workloads": ["zoo:mlp"], "clusters": ["4xV100-pcie"], "placers": ["single"]}, "records": [{"index": 0, "point": {"workload": "zoo:mlp", "cluster": "4xV100-pcie", "placer": "single"}, "stepTime": 0.001}]}`))
	f.Add([]byte(`{"scenario": {"name": "s"}, "records": []}`))
	f.Add([]byte(`{"records": [{"stepTime": "x"}]}`))
	f.Add([]byte(`[]`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "results.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := study.ReadResults(path)
		if err != nil {
			return
		}
		_ = study.CompareResults(r, r, 0.02, study.BothSides)
		var b bytes.Buffer
		if err := study.EncodeResults(&b, r); err != nil {
			t.Fatalf("cannot write back results read from a file: %v", err)
		}
	})
}
