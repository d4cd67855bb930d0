package baseline_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/baseline"
	"placesim/workloads"
)

// FuzzExpert checks that an expert placement file never panics the
// reader or the placer, and that a plan it returns puts every op on a
// device of the cluster.
func FuzzExpert(f *testing.F) {
	for _, s := range []string{
		`{"layers": {"fc2": "gpu3"}, "ops": {"fc1/relu": 2}, "default": "gpu1"}`,
		`{"default": 0}`,
		`{"default": "gpu9"}`,
		`{"default": 4}`,
		`{"ops": {"input": 0}}`,
		`{"devices": {}}`,
		`{"layers": {"fc1": -1}, "default": 1e99}`,
	} {
		f.Add([]byte(s))
	}
	g := workloads.MLP(8, []int{16, 32, 8})
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		f.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "expert.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := placers.Typed(baseline.NewExpert)(placers.Options{"file": path})
		if err != nil {
			return
		}
		plan, err := p.Place(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est})
		if err != nil {
			return
		}
		if len(plan.Device) != len(g.Ops) {
			t.Fatalf("plan of %d ops for %d", len(plan.Device), len(g.Ops))
		}
		for i, d := range plan.Device {
			if d < 0 || d >= len(c.Devices) {
				t.Fatalf("op %d on device %d of %d", i, d, len(c.Devices))
			}
		}
	})
}
