package fastt

import (
	"strings"
	"testing"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/placertest"
	"placesim/workloads"
)

// TestReplicateAllReduce: with the gradients all-reduced in the graph,
// every replica keeps the whole model's parameters, and with replica r on
// the r-th GPU each parameter gradient of B bytes crosses the links as a
// ring does: 2(n-1) chunks of ceil(B/n) bytes sent by each of the n
// replicas, nothing else but the per-sample tensors (none: the replicas
// never read one another's).
func TestReplicateAllReduce(t *testing.T) {
	req := request(t, "zoo:vgg19?image=32&batch=8&training=true&framework=tf1-graph", "../../scenarios/clusters/dgx1-4gpu.yaml")
	g := req.Graph
	for _, n := range []int{2, 4} {
		w, err := replicateAllReduce(g, n)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := w.g.ParamBytes(), int64(n)*g.ParamBytes(); got != want {
			t.Fatalf("n=%d: %d parameter bytes, want %d (every replica keeps the model)", n, got, want)
		}
		var want int64
		grads := map[int]int64{}
		for _, e := range g.Edges {
			if !sharedOp(&g.Ops[e.From]) && sharedOp(&g.Ops[e.To]) {
				grads[e.From] = max(grads[e.From], e.Bytes)
			}
		}
		if len(grads) == 0 {
			t.Fatal("no parameter gradient")
		}
		for _, b := range grads {
			want += int64(n) * int64(2*(n-1)) * ((b + int64(n) - 1) / int64(n))
		}
		steps := 0
		plan := &engine.Plan{Graph: w.g, Device: make([]int, len(w.g.Ops))}
		for v := range plan.Device {
			if strings.Contains(w.g.Ops[v].Name, "/allreduce") {
				steps++
			}
			r := w.info[v].replica
			if r < 0 {
				t.Fatalf("n=%d: op %q belongs to no replica", n, w.g.Ops[v].Name)
			}
			plan.Device[v] = r
		}
		if steps != len(grads)*n*2*(n-1) {
			t.Fatalf("n=%d: %d ring steps, want %d", n, steps, len(grads)*n*2*(n-1))
		}
		if err := placers.CheckColocation(w.g, plan); err != nil {
			t.Fatal(err)
		}
		res, err := engine.Simulate(g, req.Cluster, plan, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.BytesMoved != want {
			t.Fatalf("n=%d: %d bytes moved, want %d (the ring's)", n, res.BytesMoved, want)
		}
	}
}

func TestExchangeAllReduceConformance(t *testing.T) {
	p, err := NewDPOS(DPOSArgs{EnforceOrder: true, Rollback: true, ProfileRounds: 1, Start: StartDataParallel, DP: DPAllReduce, Exchange: ExchangeAllReduce,
		DataParallelArgs: DataParallelArgs{Bucket: DefaultBucketBytes, Overlap: true}})
	if err != nil {
		t.Fatal(err)
	}
	placertest.Run(t, p, placertest.Config{MemoryAware: true, Graphs: []*workloads.Graph{smallVGG(t)}})
}
