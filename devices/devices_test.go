package devices_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/workloads"
)

func TestPresets(t *testing.T) {
	for _, p := range devices.Presets() {
		t.Run(p.Name, func(t *testing.T) {
			c, err := devices.NewPreset(p.Name)
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.Devices {
				for j := range c.Devices {
					if i != j && !(c.TransferTime(i, j, 1<<20) > 0) {
						t.Fatalf("%s->%s: no positive transfer time", c.Devices[i].Name, c.Devices[j].Name)
					}
				}
			}
		})
	}
	if _, err := devices.NewPreset("3xTPU"); !errors.Is(err, devices.ErrUnknownPreset) || !strings.Contains(err.Error(), "4xV100-pcie") {
		t.Fatalf("unknown preset: %v", err)
	}
}

func TestTopologies(t *testing.T) {
	dgx, _ := devices.NewPreset("8xV100-nvlink")
	// gpu0-gpu3 have two NVLink bricks, gpu0-gpu1 one, gpu0-gpu5 none
	const b = 100 << 20
	two, one, none := dgx.TransferTime(0, 3, b), dgx.TransferTime(0, 1, b), dgx.TransferTime(0, 5, b)
	if !(two < one && one < none) {
		t.Fatalf("DGX-1 transfer times: NV2 %g, NV1 %g, PCIe %g", two, one, none)
	}
	if r := dgx.Route(0, 3); len(r) != 1 || dgx.Topology.Links[r[0]].Bandwidth != 50e9 {
		t.Fatalf("gpu0->gpu3 route %v", r)
	}
	two2, _ := devices.NewPreset("8xV100-nvlink-2node")
	intra, inter := two2.TransferTime(0, 1, b), two2.TransferTime(0, 4, b)
	if !(inter > 3*intra) {
		t.Fatalf("inter-node %g should be far slower than NVLink %g", inter, intra)
	}
	kinds := map[string]bool{}
	for _, lid := range two2.Route(0, 4) {
		kinds[two2.Topology.Links[lid].Kind] = true
	}
	if !kinds["ib-edr"] {
		t.Fatalf("inter-node route does not use InfiniBand: %v", kinds)
	}
	p, _ := devices.NewPreset("2xV100-nvlink+cpu")
	if len(p.Accelerators()) != 2 || p.Devices[2].Kind.Class != devices.CPU {
		t.Fatal("Pesto preset: want 2 accelerators and a CPU device")
	}
}

func TestOpTime(t *testing.T) {
	k := devices.V100_16GB
	k.Kernels = nil // the plain roofline
	op := &workloads.Op{Name: "x", FLOPs: 1e12, BytesAccessed: 1 << 20}
	got, err := devices.OpTime(op, &k)
	want := 1e12/(k.PeakFLOPS*k.ComputeEfficiency) + k.LaunchOverhead
	if err != nil || !scalar.EqualWithinAbsOrRel(got, want, 1e-15, 1e-12) {
		t.Fatalf("compute-bound roofline %g, want %g (%v)", got, want, err)
	}
	op = &workloads.Op{Name: "y", FLOPs: 1, BytesAccessed: 1 << 30}
	got, _ = devices.OpTime(op, &k)
	if want := float64(1<<30)/(k.MemBandwidth*k.MemEfficiency) + k.LaunchOverhead; !scalar.EqualWithinAbsOrRel(got, want, 1e-15, 1e-12) {
		t.Fatalf("memory-bound roofline %g, want %g", got, want)
	}
	op.Measured = map[string]float64{"*": 3, "accelerator": 2, "V100-16GB": 1}
	if got, _ := devices.OpTime(op, &k); got != 1 {
		t.Fatalf("kind name should win: %g", got)
	}
	delete(op.Measured, "V100-16GB")
	if got, _ := devices.OpTime(op, &k); got != 2 {
		t.Fatalf("class should win over *: %g", got)
	}
	op.CPUOnly = true
	if _, err := devices.OpTime(op, &k); !errors.Is(err, devices.ErrUnsupported) {
		t.Fatalf("CPU-only op on a GPU: %v", err)
	}
}

func TestClusterFile(t *testing.T) {
	good := `
name: two
devices:
  - {name: gpu0, kind: A100-80GB}
  - {name: gpu1, kind: a100-80gb, memory: 40GiB}
endpoints:
  - {name: sw0, type: pcie-switch}
links:
  - {between: [gpu0, gpu1], kind: nvlink3, width: 12}
  - {between: [gpu0, sw0], kind: pcie4}
  - {between: [gpu1, sw0], kind: pcie4, latency: 2us, bandwidth: 20GB/s}
`
	c, err := devices.ParseCluster([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Devices[1].Memory != 40<<30 || c.Devices[0].Memory != 80<<30 {
		t.Fatalf("memory %d %d", c.Devices[0].Memory, c.Devices[1].Memory)
	}
	if r := c.Route(0, 1); len(r) != 1 || c.Topology.Links[r[0]].Bandwidth != 300e9 {
		t.Fatalf("route %v", r)
	}
	bad := []struct{ name, text, want string }{
		{"unknown field", "name: x\ndevices: [{name: g, kind: V100-16GB, memroy: 1GiB}]\nlinks: []", `unknown field "memroy" (valid: name, kind, memory); did you mean "memory"?`},
		{"unknown kind", "name: x\ndevices: [{name: g, kind: V200}]\nlinks: []", `devices[0].kind: unknown device kind "V200" (valid:`},
		{"bad memory", "name: x\ndevices: [{name: g, kind: V100-16GB, memory: -3GB}]\nlinks: []", "devices[0].memory"},
		{"unknown endpoint", "name: x\ndevices: [{name: g, kind: V100-16GB}]\nlinks: [{between: [g, h], kind: pcie3}]", `links[0].between[1]: unknown endpoint "h"`},
		{"bad link kind", "name: x\ndevices: [{name: g, kind: V100-16GB}, {name: h, kind: V100-16GB}]\nlinks: [{between: [g, h], kind: pcie9}]", "links[0].kind: unknown link kind"},
		{"one-ended link", "name: x\ndevices: [{name: g, kind: V100-16GB}]\nlinks: [{between: [g], kind: pcie3}]", "links[0].between: 1 names"},
		{"disconnected", "name: x\ndevices: [{name: g, kind: V100-16GB}, {name: h, kind: V100-16GB}]\nlinks: []", "no route from g to h"},
		{"no devices", "name: x\nlinks: []", "field devices is empty"},
		{"wrong type", "name: x\ndevices: {name: g}\nlinks: []", "cannot unmarshal"},
		{"subnormal computeEfficiency", "name: x\nkinds: [{name: s, base: V100-32GB, computeEfficiency: \"1e-320\"}]\ndevices: [{name: g, kind: s}]\nlinks: []",
			`field computeEfficiency = 1e-320 (valid range: [1e-06, 1])`},
		{"tiny memEfficiency", "name: x\nkinds: [{name: s, base: V100-32GB, memEfficiency: \"1e-9\"}]\ndevices: [{name: g, kind: s}]\nlinks: []",
			`field memEfficiency = 1e-09 (valid range: [1e-06, 1])`},
		{"computeEfficiency above 1", "name: x\nkinds: [{name: s, base: V100-32GB, computeEfficiency: \"1.5\"}]\ndevices: [{name: g, kind: s}]\nlinks: []",
			`field computeEfficiency = 1.5`},
		{"bad endpoint type", "name: x\ndevices: [{name: g, kind: V100-16GB}]\nendpoints: [{name: s, type: hub}]\nlinks: []", "endpoints[0].type"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := devices.ParseCluster([]byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(path, []byte("name: x\ndevices: [{name: g, kind: V200}]\nlinks: []"), 0o644)
	if _, err := devices.Resolve(path); err == nil || !strings.Contains(err.Error(), `cluster file "`+path+`"`) {
		t.Fatalf("file error should name the file: %v", err)
	}
}

func TestEstimates(t *testing.T) {
	g := workloads.MLP(32, []int{64, 128, 10})
	c, _ := devices.NewPreset("4xV100-pcie")
	ex, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range g.Ops {
		truth, _ := c.OpTime(&g.Ops[i], 1)
		if ex.OpTime(i, 1) != truth {
			t.Fatal("exact estimates differ from the truth")
		}
	}
	n1, _ := devices.NewEstimates(g, c, devices.EstimateOptions{Mode: devices.Noisy, Sigma: 0.2, Seed: 5})
	n2, _ := devices.NewEstimates(g, c, devices.EstimateOptions{Mode: devices.Noisy, Sigma: 0.2, Seed: 5})
	n3, _ := devices.NewEstimates(g, c, devices.EstimateOptions{Mode: devices.Noisy, Sigma: 0.2, Seed: 6})
	differs := false
	for i := range g.Ops {
		if n1.OpTime(i, 0) != n2.OpTime(i, 0) {
			t.Fatal("same seed, different noise")
		}
		if n1.OpTime(i, 0) != n3.OpTime(i, 0) {
			differs = true
		}
		if x := n1.OpTime(i, 0); x < 0 || math.IsInf(x, 0) || (x == 0) != (ex.OpTime(i, 0) == 0) {
			t.Fatalf("noisy estimate %g of op %q (true %g): want positive and finite, 0 only where no kernel runs", x, g.Ops[i].Name, ex.OpTime(i, 0))
		}
	}
	if !differs {
		t.Fatal("different seeds gave the same noise")
	}
	if _, err := devices.NewEstimates(g, c, devices.EstimateOptions{Mode: "psychic"}); err == nil {
		t.Fatal("unknown mode accepted")
	}
}
