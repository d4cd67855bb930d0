package engine_test

import (
	"fmt"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/links"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// gradientBytes sums the update ops' GradBytes: what one replica's
// all-reduce must carry.
func gradientBytes(g *workloads.Graph) int64 {
	var s int64
	for i := range g.Ops {
		if g.Ops[i].Role == workloads.Update {
			s += g.Ops[i].GradBytes
		}
	}
	return s
}

// TestResNet50DataParallelDGX1 pins issue 15's case: ResNet-50 training,
// batch 896 (112 per GPU), 8 replicas on a DGX-1 without overlap. The step
// fits a 16 GiB V100 (the barrier before the all-reduce keeps no backward
// output alive: peak within the gradients of a one-GPU step at batch 112),
// the all-reduce carries the FP32 gradients only (97.5 MiB, not the
// optimizer state and gradient buffers), and its rings run over NVLink
// only, every NVLink in both directions (ringChannels: the double-brick
// cycle and the single-brick cycle, each both ways, with 1/3 and 1/6 of
// the gradients), each directed link carrying 2 x 7/8 of its ring's
// part.
func TestResNet50DataParallelDGX1(t *testing.T) {
	g, err := zoo.Build("resnet50?training=true&batch=896&bn=fused")
	if err != nil {
		t.Fatal(err)
	}
	c, err := devices.NewPreset("8xV100-nvlink")
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	plan := &engine.Plan{Device: make([]int, len(g.Ops)), DataParallel: &engine.DataParallel{Replicas: n}}
	r, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.OOM != nil {
		t.Fatalf("false OOM: %v", r.OOM.Err())
	}
	S := gradientBytes(g)
	if mib := float64(S) / (1 << 20); mib < 97 || mib > 98 {
		t.Errorf("ResNet-50's FP32 gradients are %.2f MiB, want about 97.5 MiB (25.6 M parameters)", mib)
	}
	dp := r.DataParallel
	if dp.GradientBytes != S || dp.Algorithm != engine.AlgoRing {
		t.Errorf("all-reduce of %d bytes by %q, want %d bytes (the gradients) by ring", dp.GradientBytes, dp.Algorithm, S)
	}
	var sum int64
	for _, l := range r.Links {
		sum += l.Bytes
		if l.Kind != links.NVLink2.Name {
			t.Errorf("link %s->%s (%s) carried %d bytes, want NVLink only", l.From, l.To, l.Kind, l.Bytes)
		}
	}
	if len(r.Links) != 32 {
		t.Errorf("%d links carried traffic, want the 32 directed NVLinks", len(r.Links))
	}
	// each ring's part crosses n links 2(n-1) times in chunks of 1/n:
	// 2(n-1) x S over all links, up to the chunks' rounding
	if want := 2 * (n - 1) * S; !closeTo(float64(sum), float64(want), 1e-6) {
		t.Errorf("links carried %d bytes in all, want 2(n-1) x S = %d", sum, want)
	}
	if !closeTo(dp.BusBW, dp.AlgBW*2*(n-1)/n, arTol) || dp.AlgBW <= 0 {
		t.Errorf("busbw %g, want algbw %g x 2(n-1)/n", dp.BusBW, dp.AlgBW)
	}
	// memory: what one GPU needs for its share of the batch, plus at most
	// the gradients' worth of all-reduce chunks
	one, err := zoo.Build("resnet50?training=true&batch=112&bn=fused")
	if err != nil {
		t.Fatal(err)
	}
	r1, err := engine.Simulate(one, c, &engine.Plan{Device: make([]int, len(one.Ops))}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range r.Devices {
		if d.PeakMemory > r1.Devices[0].PeakMemory+S {
			t.Errorf("%s peaks at %d bytes, more than a one-GPU step at batch 112 (%d) plus the gradients (%d)", d.Name, d.PeakMemory, r1.Devices[0].PeakMemory, S)
		}
	}
}

// TestAllReduceCarriesGradientsOnly: an update op's parameter bytes
// (weights, optimizer state, a gradient buffer) stay out of the all-reduce;
// its GradBytes go in. Without GradBytes anywhere the forward ops'
// parameter bytes are the fallback.
func TestAllReduceCarriesGradientsOnly(t *testing.T) {
	const P = 8 << 20
	build := func(grad int64) *workloads.Graph {
		g := workloads.NewGraph("w", 8)
		zero := map[string]float64{workloads.MeasuredAny: 0}
		f := g.AddOp(workloads.Op{Name: "w", Role: workloads.Forward, ParamBytes: P, Colocation: "w", Measured: zero})
		b := g.AddOp(workloads.Op{Name: "w/grad", Role: workloads.Backward, Colocation: "w", Measured: zero})
		u := g.AddOp(workloads.Op{Name: "w/update", Role: workloads.Update, ParamBytes: 3 * P, GradBytes: grad, Colocation: "w", Measured: zero})
		g.AddEdge(f, b, 0)
		g.AddEdge(b, u, P)
		return g
	}
	for _, tc := range []struct {
		name string
		grad int64
		want int64
	}{
		{"gradBytes", P / 2, P / 2},
		{"fallback to forward parameters", 0, P},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := meshCluster(t, 4, 25e9, 1e-6)
			g := build(tc.grad)
			r, err := engine.Simulate(g, c, &engine.Plan{Device: []int{0, 0, 0}, DataParallel: &engine.DataParallel{Replicas: 4}}, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.DataParallel.GradientBytes; got != tc.want {
				t.Errorf("all-reduce of %d bytes, want %d", got, tc.want)
			}
		})
	}
}

// nodesCluster is k nodes of g GPUs: NVLink (2 bricks) between the GPUs
// of a node, each node's GPUs on a PCIe switch with a NIC to one network
// switch whose links have latency netLat.
func nodesCluster(t *testing.T, k, g int, netLat float64) *devices.Cluster {
	t.Helper()
	top := links.NewTopology()
	var devs []devices.Device
	net, err := top.AddEndpoint("net", links.NetSwitch)
	if err != nil {
		t.Fatal(err)
	}
	link := func(a, b links.EndpointID, kind links.Kind, width int, lat float64) {
		kind.Latency = lat
		if err := top.Connect(a, b, kind, width); err != nil {
			t.Fatal(err)
		}
	}
	for h := 0; h < k; h++ {
		sw, _ := top.AddEndpoint(fmt.Sprintf("n%d-sw", h), links.PCIeSwitch)
		nic, _ := top.AddEndpoint(fmt.Sprintf("n%d-nic", h), links.NIC)
		link(nic, sw, links.PCIe3, 1, links.PCIe3.Latency)
		link(nic, net, links.IBEDR, 1, netLat)
		var gpus []links.EndpointID
		for i := 0; i < g; i++ {
			name := fmt.Sprintf("n%d-gpu%d", h, i)
			e, err := top.AddEndpoint(name, links.GPU)
			if err != nil {
				t.Fatal(err)
			}
			link(e, sw, links.PCIe3, 1, links.PCIe3.Latency)
			for _, o := range gpus {
				link(o, e, links.NVLink2, 2, links.NVLink2.Latency)
			}
			gpus = append(gpus, e)
			devs = append(devs, devices.Device{Name: name, Kind: devices.V100_16GB, Endpoint: e})
		}
	}
	c, err := devices.NewCluster(fmt.Sprintf("%dx%d", k, g), top, devs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAllReduceAlgorithm: within a node the ring; across nodes, for a
// large message, the hierarchical algorithm (it crosses the network with
// S·2(k-1)/k per NIC instead of the flat ring's S·2(n-1)/n); for a tiny
// message on a high-latency network, the tree (2 log2 n steps instead of
// 2(n-1)). nccl-tests' bus bandwidth is algbw x 2(n-1)/n throughout.
func TestAllReduceAlgorithm(t *testing.T) {
	for _, tc := range []struct {
		name    string
		k, g    int
		netLat  float64
		S       int64
		want    string
		replica int
	}{
		{"one node", 1, 8, 1e-6, 256 << 20, engine.AlgoRing, 8},
		{"two nodes, large", 2, 4, 2e-6, 256 << 20, engine.AlgoHierarchical, 8},
		{"eight nodes, tiny, slow network", 8, 1, 50e-6, 4 << 10, engine.AlgoTree, 8},
		{"eight nodes, large", 8, 1, 2e-6, 256 << 20, engine.AlgoRing, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := nodesCluster(t, tc.k, tc.g, tc.netLat)
			g := gradGraph("w", tc.S)
			r, err := engine.Simulate(g, c, &engine.Plan{Device: []int{0, 0}, DataParallel: &engine.DataParallel{Replicas: tc.replica}}, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			dp := r.DataParallel
			if dp.Algorithm != tc.want {
				t.Errorf("algorithm %q, want %q", dp.Algorithm, tc.want)
			}
			a := dp.AllReduces[0]
			n := float64(tc.replica)
			if !closeTo(a.AlgBW, float64(tc.S)/(a.End-a.Start), arTol) || !closeTo(a.BusBW, a.AlgBW*2*(n-1)/n, arTol) {
				t.Errorf("algbw %g busbw %g, want S/t = %g and algbw x 2(n-1)/n", a.AlgBW, a.BusBW, float64(tc.S)/(a.End-a.Start))
			}
			if r.StepTime <= 0 || a.End > r.StepTime {
				t.Errorf("all-reduce ends at %g, step %g", a.End, r.StepTime)
			}
		})
	}
}
