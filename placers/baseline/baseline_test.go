package baseline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/baseline"
	"placesim/placers/placertest"
	"placesim/workloads"
)

func TestConformance(t *testing.T) {
	for _, f := range []placers.Factory{placers.Typed(baseline.NewSingle), placers.Typed(baseline.NewRoundRobin), placers.Typed(baseline.NewRandom)} {
		p, err := f(nil)
		if err != nil {
			t.Fatal(err)
		}
		placertest.Run(t, p, placertest.Config{})
	}
}

func TestExpert(t *testing.T) {
	dir := t.TempDir()
	g := workloads.MLP(8, []int{16, 32, 8})
	c, _ := devices.NewPreset("4xV100-pcie")
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	write := func(s string) string {
		p := filepath.Join(dir, "e.json")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, file, wantErr string
		want                map[string]int
	}{
		{"layers and default", `{"layers": {"fc2": "gpu3"}, "ops": {"fc1/relu": 2}, "default": "gpu1"}`, "",
			map[string]int{"input": 1, "fc1/matmul": 1, "fc1/relu": 2, "fc2/matmul": 3}},
		{"unknown device", `{"default": "gpu9"}`, `unknown device "gpu9"`, nil},
		{"index out of range", `{"default": 4}`, "valid: a device name or an index in [0, 3]", nil},
		{"no default", `{"ops": {"input": 0}}`, `no device for op "fc1/matmul"`, nil},
		{"unknown op", `{"ops": {"nope": 0}, "default": 0}`, "ops.nope: graph", nil},
		{"unknown field", `{"devices": {}}`, "unknown field", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := placers.Typed(baseline.NewExpert)(placers.Options{"file": write(tc.file)})
			if err == nil {
				pl, perr := p.Place(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est})
				err = perr
				if err == nil {
					for name, d := range tc.want {
						found := false
						for i := range g.Ops {
							if g.Ops[i].Name == name {
								found = true
								if pl.Device[i] != d {
									t.Errorf("op %s on %d, want %d", name, pl.Device[i], d)
								}
							}
						}
						if !found {
							t.Fatalf("no op %s", name)
						}
					}
				}
			}
			if tc.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
	if _, err := placers.Typed(baseline.NewExpert)(nil); err == nil || !strings.Contains(err.Error(), "needs option file") {
		t.Fatalf("missing file option: %v", err)
	}
}
