package collectives_test

import (
	"testing"

	"placesim/collectives"
	"placesim/devices"
)

func system(t testing.TB, spec string) *devices.Cluster {
	t.Helper()
	c, err := devices.NewSystem(spec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// strided is the group {first, first+stride, ...} of n devices.
func strided(first, stride, n int) []int {
	g := make([]int, n)
	for i := range g {
		g[i] = first + i*stride
	}
	return g
}

func TestConcurrentAloneIsTime(t *testing.T) {
	t.Parallel()
	c := system(t, "dgx-h100:nodes=4")
	for _, k := range collectives.Kinds() {
		g := strided(0, 8, 4)
		if k == collectives.SendRecv {
			g = g[:2]
		}
		want, err := collectives.Time(c, g, k, 1<<28)
		if err != nil {
			t.Fatal(err)
		}
		got, err := collectives.Concurrent(c, [][]int{g}, k, 1<<28)
		if err != nil || got[0] != want {
			t.Fatalf("%s: %+v, want %+v (%v)", k, got, want, err)
		}
	}
}

// Two all-gathers over the same 8 GPUs share their NVLink: the
// bandwidth term doubles, NCCL's latency term does not.
func TestConcurrentSharedGPUs(t *testing.T) {
	t.Parallel()
	c := system(t, "dgx-h100:nodes=1")
	g := strided(0, 1, 8)
	const b = 1 << 32
	alone, _ := collectives.Time(c, g, collectives.AllGather, b)
	both, err := collectives.Concurrent(c, [][]int{g, g}, collectives.AllGather, b)
	if err != nil {
		t.Fatal(err)
	}
	// NCCL's latency terms are tens of microseconds
	const maxLatency = 100e-6
	if s := both[0].Seconds; !(s < 2*alone.Seconds && s > 2*alone.Seconds-maxLatency) {
		t.Fatalf("shared: %g s, want twice the bandwidth term of %g s alone", s, alone.Seconds)
	}
	// disjoint halves of the node do not slow each other
	halves, _ := collectives.Concurrent(c, [][]int{strided(0, 1, 4), strided(4, 1, 4)}, collectives.AllGather, b)
	one, _ := collectives.Time(c, strided(0, 1, 4), collectives.AllGather, b)
	if halves[0] != one {
		t.Fatalf("disjoint: %+v, want %+v", halves[0], one)
	}
}

// All-to-alls of the GPUs of the same rank on every node, all at once:
// on a 4:1 fat-tree, the half of the traffic that leaves a leaf shares
// its uplinks (a quarter of the ports' rate), on a non-blocking
// rail-optimised fabric nothing is shared.
func TestConcurrentOversubscription(t *testing.T) {
	t.Parallel()
	const b = 1 << 30
	var groups [][]int
	for r := 0; r < 8; r++ {
		groups = append(groups, strided(r, 8, 8))
	}
	rail := system(t, "dgx-h100:nodes=8")
	fat := system(t, "dgx-h100:nodes=8,fabric=fat-tree,oversubscription=4")
	r, err := collectives.Concurrent(rail, groups, collectives.AllToAll, b)
	if err != nil {
		t.Fatal(err)
	}
	alone, _ := collectives.Time(rail, groups[0], collectives.AllToAll, b)
	if r[0] != alone {
		t.Fatalf("rail: %+v, want alone %+v", r[0], alone)
	}
	f, err := collectives.Concurrent(fat, groups, collectives.AllToAll, b)
	if err != nil {
		t.Fatal(err)
	}
	fAlone, _ := collectives.Time(fat, groups[0], collectives.AllToAll, b)
	if !(f[0].Seconds > 1.5*fAlone.Seconds) {
		t.Fatalf("fat-tree: %g s all at once, %g s alone", f[0].Seconds, fAlone.Seconds)
	}
	// Replicated finds the same eight translates of group 0
	rep, err := collectives.Replicated(fat, groups[0], collectives.AllToAll, b, 0)
	if err != nil || rep != f[0] {
		t.Fatalf("replicated: %+v, want %+v (%v)", rep, f[0], err)
	}
}

// A tensor-parallel all-reduce in node 0 and a data-parallel all-reduce
// with one rank per node meet nowhere (the latter leaves each GPU by its
// adapter); one with two ranks per node rides the same NVLink and both
// slow down.
func TestCallsTPAndDP(t *testing.T) {
	t.Parallel()
	c := system(t, "dgx-h100:nodes=2")
	const b = 1 << 30
	tp := collectives.Call{Group: strided(0, 1, 8), Kind: collectives.AllReduce, Bytes: b}
	alone, _ := collectives.Time(c, tp.Group, tp.Kind, b)
	es, err := collectives.Calls(c, []collectives.Call{tp, {Group: []int{0, 8}, Kind: collectives.ReduceScatter, Bytes: b}})
	if err != nil {
		t.Fatal(err)
	}
	if es[0] != alone {
		t.Fatalf("one rank per node: TP %+v, want alone %+v", es[0], alone)
	}
	es, err = collectives.Calls(c, []collectives.Call{tp, {Group: []int{0, 1, 8, 9}, Kind: collectives.ReduceScatter, Bytes: b}})
	if err != nil {
		t.Fatal(err)
	}
	if !(es[0].Seconds > 1.5*alone.Seconds) {
		t.Fatalf("two ranks per node: TP %g s, alone %g s", es[0].Seconds, alone.Seconds)
	}
	if _, err := collectives.Calls(c, []collectives.Call{{Group: []int{0, 99}, Kind: collectives.AllReduce, Bytes: 1}}); err == nil {
		t.Fatal("bad group accepted")
	}
}
