package collectives_test

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/collectives"
	"placesim/devices"
)

// relTol is the relative tolerance of figures derived by hand from NCCL's
// constants against the model's.
const relTol = 1e-3

func preset(t *testing.T, name string) *devices.Cluster {
	t.Helper()
	c, err := devices.NewPreset(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func seq(n int) []int {
	g := make([]int, n)
	for i := range g {
		g[i] = i
	}
	return g
}

func TestBusFactor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		k    collectives.Kind
		n    int
		want float64
	}{
		{collectives.AllReduce, 8, 2 * 7.0 / 8},
		{collectives.AllGather, 8, 7.0 / 8},
		{collectives.ReduceScatter, 16, 15.0 / 16},
		{collectives.AllToAll, 4, 3.0 / 4},
		{collectives.Broadcast, 8, 1},
		{collectives.SendRecv, 2, 1},
	} {
		if got := tc.k.BusFactor(tc.n); !scalar.EqualWithinRel(got, tc.want, 1e-12) {
			t.Errorf("%s n=%d: %g, want %g", tc.k, tc.n, got, tc.want)
		}
	}
}

func TestParseKind(t *testing.T) {
	t.Parallel()
	for _, k := range collectives.Kinds() {
		got, err := collectives.ParseKind(k.String())
		if err != nil || got != k {
			t.Fatalf("%s: %v %v", k, got, err)
		}
	}
	if k, err := collectives.ParseKind("all_reduce"); err != nil || k != collectives.AllReduce {
		t.Fatalf("nccl-tests spelling: %v %v", k, err)
	}
	if _, err := collectives.ParseKind("all-mix"); err == nil {
		t.Fatal("unknown collective accepted")
	}
}

// On one DGX H100 a large all-reduce runs NVLS: 8 channels (one per GPU)
// at the fastest Hopper speed whose sum fits a GPU's NVLink bandwidth as
// NCCL counts it (18 links x 20.6 GB/s = 370.8: 40 GB/s), and busbw
// tends to channels x speed x NVLS efficiency (0.85) x (n-1)/n x 2.
// All-gather runs rings: 6 channels at 60 GB/s, doubled to 12 at 30:
// busbw tends to 360 GB/s.
func TestDGXH100Asymptotes(t *testing.T) {
	t.Parallel()
	c := preset(t, "8xH100-nvswitch")
	const huge = 1 << 40
	e, err := collectives.Time(c, seq(8), collectives.AllReduce, huge)
	if err != nil {
		t.Fatal(err)
	}
	if want := 8 * 40 * 0.85 * 7 / 8 * 2 * 1e9; e.Algorithm != "nvls" || !scalar.EqualWithinRel(e.BusBW, want, relTol) {
		t.Fatalf("all-reduce: %+v, want nvls at busbw %g", e, want)
	}
	for _, k := range []collectives.Kind{collectives.AllGather, collectives.ReduceScatter} {
		e, err := collectives.Time(c, seq(8), k, huge)
		if err != nil {
			t.Fatal(err)
		}
		if e.Algorithm != "ring" || e.Protocol != "Simple" || e.Channels != 12 || !scalar.EqualWithinRel(e.BusBW, 360e9, relTol) {
			t.Fatalf("%s: %+v, want ring/Simple, 12 channels, busbw 360 GB/s", k, e)
		}
	}
}

// Time grows with size and bandwidth stays under what the links carry;
// small messages pick a low-latency protocol.
func TestMonotone(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"8xH100-nvswitch", "8xA100-nvswitch", "4xV100-pcie", "8xV100-nvlink-2node"} {
		c := preset(t, name)
		g := c.Accelerators()
		for _, k := range collectives.Kinds() {
			grp := g
			if k == collectives.SendRecv {
				grp = []int{g[0], g[len(g)-1]}
			}
			prev := 0.0
			for b := int64(1); b <= 1<<34; b *= 4 {
				e, err := collectives.Time(c, grp, k, b)
				if err != nil {
					t.Fatalf("%s %s %d: %v", name, k, b, err)
				}
				if !(e.Seconds > 0) || e.Seconds < prev*(1-1e-9) {
					t.Fatalf("%s %s %d bytes: %g s after %g s", name, k, b, e.Seconds, prev)
				}
				prev = e.Seconds
				if e.Channels < 1 || e.Algorithm == "" || e.Protocol == "" {
					t.Fatalf("%s %s: %+v", name, k, e)
				}
			}
			small, _ := collectives.Time(c, grp, k, 64)
			if (k != collectives.AllToAll && k != collectives.SendRecv) && small.Protocol == "Simple" {
				t.Errorf("%s %s 64 B: %+v, want LL or LL128", name, k, small)
			}
		}
	}
}

// NVLS needs NVSwitch and Hopper; LL128 needs NVLink.
func TestAlgorithmAvailability(t *testing.T) {
	t.Parallel()
	a100 := preset(t, "8xA100-nvswitch")
	for b := int64(1); b <= 1<<34; b *= 8 {
		e, _ := collectives.Time(a100, seq(8), collectives.AllReduce, b)
		if e.Algorithm == "nvls" || e.Algorithm == "nvls-tree" {
			t.Fatalf("A100 all-reduce %d bytes: %+v", b, e)
		}
	}
	pcie := preset(t, "4xV100-pcie")
	for b := int64(1); b <= 1<<34; b *= 8 {
		e, _ := collectives.Time(pcie, seq(4), collectives.AllGather, b)
		if e.Protocol == "LL128" {
			t.Fatalf("PCIe all-gather %d bytes: %+v", b, e)
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	c := preset(t, "8xH100-nvswitch")
	for name, tc := range map[string]struct {
		g []int
		k collectives.Kind
		b int64
	}{
		"empty":        {nil, collectives.AllReduce, 1},
		"out of range": {[]int{0, 99}, collectives.AllReduce, 1},
		"duplicate":    {[]int{1, 1}, collectives.AllGather, 1},
		"negative":     {[]int{0, 1}, collectives.AllGather, -1},
		"sendrecv 3":   {[]int{0, 1, 2}, collectives.SendRecv, 1},
		"unknown kind": {[]int{0, 1}, collectives.Kind(42), 1},
	} {
		if _, err := collectives.Time(c, tc.g, tc.k, tc.b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := collectives.Time(c, []int{0, 99}, collectives.AllReduce, 1); !errors.Is(err, collectives.ErrBadGroup) {
		t.Errorf("out of range: %v, want ErrBadGroup", err)
	}
	e, err := collectives.Time(c, []int{3}, collectives.AllReduce, 1<<20)
	if err != nil || e.Seconds != 0 {
		t.Fatalf("one device: %+v %v", e, err)
	}
}

// TestMeshSubgroup: on an NVLink mesh NCCL's search sees only the links
// among a communicator's GPUs. A DGX-1's 8 GPUs have 6 bricks each (6
// ring channels of 20 GB/s: 120 GB/s of bus bandwidth for a large
// all-reduce); its GPUs 0-3 have 4 of them among themselves (0-1, 0-2 by
// one brick, 0-3 by two; 4 channels, 80 GB/s), GPUs 0 and 3 the two
// bricks between them.
func TestMeshSubgroup(t *testing.T) {
	c := preset(t, "8xV100-nvlink")
	const S = 1 << 30
	for _, tc := range []struct {
		grp      []int
		channels int
		busbw    float64 // GB/s, NCCL's per-link 20 GB/s times the channels
	}{{seq(8), 6, 120}, {seq(4), 4, 80}, {[]int{0, 3}, 2, 40}} {
		e, err := collectives.Time(c, tc.grp, collectives.AllReduce, S)
		if err != nil {
			t.Fatal(err)
		}
		if e.Channels != tc.channels || math.Abs(e.BusBW/1e9/tc.busbw-1) > 0.05 {
			t.Errorf("group %v: %d channels, busbw %.1f GB/s; want %d channels, about %.0f GB/s (5 %%)", tc.grp, e.Channels, e.BusBW/1e9, tc.channels, tc.busbw)
		}
	}
}
