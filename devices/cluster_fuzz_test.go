package devices_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"placesim/devices"
)

// FuzzParseCluster checks that a cluster file never panics or hangs the
// parser, and that a cluster it accepts has devices and finite,
// non-negative transfer times between them. Seeds: the shipped cluster
// files and hand-made bad ones; found inputs are in
// testdata/fuzz/FuzzParseCluster (go test replays them).
func FuzzParseCluster(f *testing.F) {
	files, _ := filepath.Glob("../scenarios/clusters/*.yaml")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		`{"name": "j", "devices": [{"name": "g0", "kind": "V100-32GB"}, {"name": "g1", "kind": "A100-80GB"}], "links": [{"between": ["g0", "g1"], "kind": "nvlink3", "width": 2}]}`,
		"name: k\nkinds: [{name: acc, base: V100-16GB, flops: 1e12, memory: 1GiB}]\ndevices: [{name: a, kind: acc}, {name: c, kind: cpu}]\nlinks: [{between: [a, c], kind: pcie4, bandwidth: 10GB/s, latency: 2us}]\n",
		"name: x\ndevices: []\n",
		"name: y\ndevices: [{name: a, kind: nope}]\n",
		"name: z\ndevices: [{name: a, kind: V100-16GB, memory: -1}]\nlinks: [{between: [a], kind: pcie3}]\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := devices.ParseCluster(data)
		if err != nil {
			if c != nil {
				t.Fatalf("a cluster and an error: %v", err)
			}
			return
		}
		if len(c.Devices) == 0 {
			t.Fatal("accepted a cluster without devices")
		}
		n := min(len(c.Devices), 4)
		for i := range n {
			for j := range n {
				if tt := c.TransferTime(i, j, 1<<20); math.IsNaN(tt) || tt < 0 {
					t.Fatalf("transfer time %d -> %d = %g", i, j, tt)
				}
			}
		}
	})
}
