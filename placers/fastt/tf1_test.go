package fastt

import (
	"testing"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/placertest"
	"placesim/workloads"
)

func TestDataParallelTF1Conformance(t *testing.T) {
	p, err := NewDataParallelTF1(placers.NoArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "data-parallel-tf1" {
		t.Fatalf("name %q", p.Name())
	}
	placertest.Run(t, p, placertest.Config{Graphs: []*workloads.Graph{smallVGG(t)}})
}

// TestDataParallelTF1Plan: replica r runs on the r-th accelerator, every
// op the replicas share (variables, gradient sums, updates) on a parameter
// device: the first GPU on one server; on two servers the first GPU of
// each, both used.
func TestDataParallelTF1Plan(t *testing.T) {
	for _, tc := range []struct {
		cluster string
		ps      []string
	}{
		{"../../scenarios/clusters/dgx1-4gpu.yaml", []string{"gpu0"}},
		{"8xV100-nvlink-2node", []string{"n0-gpu0", "n1-gpu0"}},
	} {
		t.Run(tc.cluster, func(t *testing.T) {
			req := request(t, "zoo:vgg19?image=32&batch=8&training=true&framework=tf1-graph", tc.cluster)
			w, plan, err := tf1Plan(req.Graph, req.Cluster)
			if err != nil {
				t.Fatal(err)
			}
			acc, _ := placers.Targets(req.Cluster)
			n := replicasFor(req.Graph.Batch, len(acc))
			if w.replicas != n || n < 2 {
				t.Fatalf("%d replicas, want %d (>= 2)", w.replicas, n)
			}
			psUsed := map[string]bool{}
			for v, d := range plan.Device {
				if r := w.info[v].replica; r >= 0 {
					if d != acc[r] {
						t.Fatalf("op %q of replica %d on device %d, want %d", w.g.Ops[v].Name, r, d, acc[r])
					}
					continue
				}
				psUsed[req.Cluster.Devices[d].Name] = true
			}
			if len(psUsed) != len(tc.ps) {
				t.Fatalf("shared ops on %v, want %v", psUsed, tc.ps)
			}
			for _, name := range tc.ps {
				if !psUsed[name] {
					t.Fatalf("shared ops on %v, want %v", psUsed, tc.ps)
				}
			}
			if err := placers.CheckColocation(w.g, plan); err != nil {
				t.Fatal(err)
			}
			if _, err := engine.Simulate(req.Graph, req.Cluster, plan, engine.Options{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRollbackToTF1: with dp=tf1, FastT's plan simulates at most as slow
// as data-parallel-tf1's (its start strategy, kept when nothing beats it),
// and the report says which strategy it kept.
func TestRollbackToTF1(t *testing.T) {
	const tol = 1e-9 // the same plan simulated twice
	for _, spec := range []string{
		"zoo:vgg19?image=64&batch=16&training=true&framework=tf1-graph",
		"zoo:inception_v3?image=96&batch=16&training=true&framework=tf1-graph",
	} {
		t.Run(spec, func(t *testing.T) {
			req := request(t, spec, "../../scenarios/clusters/dgx1-4gpu.yaml")
			plan, rep := place(t, placers.Typed(NewOSDPOS), placers.Options{"dp": "tf1"}, req)
			_, dp, err := tf1Plan(req.Graph, req.Cluster)
			if err != nil {
				t.Fatal(err)
			}
			a, err := engine.Simulate(req.Graph, req.Cluster, plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := engine.Simulate(req.Graph, req.Cluster, dp, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if a.StepTime > b.StepTime*(1+tol) {
				t.Fatalf("fastt-os-dpos dp=tf1 simulates at %g s, data-parallel-tf1 at %g s; notes %v", a.StepTime, b.StepTime, rep.Notes)
			}
			kept := ""
			for _, n := range rep.Notes {
				if len(n) > 6 && n[:6] == "kept: " {
					kept = n[6:]
				}
			}
			if kept == "" || kept == dpName {
				t.Fatalf("kept %q: want DPOS, OS-DPOS or %q", kept, dpTF1Name)
			}
			t.Logf("kept %s: %.6g s against data-parallel-tf1 %.6g s", kept, a.StepTime, b.StepTime)
		})
	}
}
