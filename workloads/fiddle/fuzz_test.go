package fiddle_test

import (
	"os"
	"path/filepath"
	"testing"

	"placesim/workloads/fiddle"
)

// FuzzParse checks that no input makes Parse panic, and that every graph it
// accepts is valid and keeps one op per node. Seeds: testdata/three.json
// and the corpus in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "three.json")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"maxSizePerFPGA": 1e9, "maxFPGAs": 1, "maxCPUs": 1, "nodes": [{"id": 0, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0, "size": 0}], "edges": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := fiddle.Parse(data, "fuzz.json")
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("accepted graph is invalid: %v", err)
		}
		if g.Hint == nil {
			t.Fatal("accepted graph has no hint")
		}
		for i := range g.Ops {
			if g.Ops[i].ParamBytes < 0 {
				t.Fatalf("op %d has negative size", i)
			}
		}
	})
}
