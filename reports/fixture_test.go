package reports_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/baseline"
	"placesim/study"
	"placesim/workloads"
)

// Test placers that fail in each way a comparison must survive.
type (
	failing  struct{}
	panicky  struct{}
	overtime struct{} // honours its context, never finishes in time
)

func (failing) Name() string { return "fails" }
func (failing) Place(context.Context, *placers.Request) (*engine.Plan, error) {
	return nil, errors.New("no plan for this graph")
}
func (panicky) Name() string { return "panics" }
func (panicky) Place(context.Context, *placers.Request) (*engine.Plan, error) {
	panic("index out of range [7] with length 4")
}
func (overtime) Name() string { return "slow" }
func (overtime) Place(ctx context.Context, _ *placers.Request) (*engine.Plan, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// fixtureMemory is each accelerator's memory in the fixture cluster: the
// single and round-robin placers need 9.45 MiB and run out; random (seed
// 3) fits.
const fixtureMemory = 9 << 20

// fixtureTimeout is the slow placer's time limit.
const fixtureTimeout = 150 * time.Millisecond

// fixture is a small fixed comparison: a training MLP on two accelerators
// with the baselines (one OOM) and three placers that fail, panic and time
// out. reproducible leaves placement times out (null).
func fixture(t testing.TB, reproducible bool) ([]*study.Record, *devices.Cluster) {
	t.Helper()
	g := fixtureGraph()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	c, err := devices.AccCPU("golden-2acc", 2, 0, fixtureMemory)
	if err != nil {
		t.Fatal(err)
	}
	reg := placers.NewRegistry()
	if err := baseline.Register(reg); err != nil {
		t.Fatal(err)
	}
	for _, p := range []placers.Placer{failing{}, panicky{}, overtime{}} {
		p := p
		if err := reg.Add(placers.Define(p.Name(), "test placer", func(placers.NoArgs) (placers.Placer, error) { return p, nil })); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := study.Compare(context.Background(), reg, g, c, study.CompareSpec{
		Placers: []string{"slow", "single", "fails", "round-robin", "panics", "random"},
		Base:    study.Spec{Seed: 3, Reproducible: reproducible},
		Timeout: fixtureTimeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows, c
}

// tracedBest is the fixture's best run, traced.
func tracedBest(t testing.TB, rows []*study.Record, c *devices.Cluster) *study.Record {
	t.Helper()
	o := study.Best(rows)
	if o == nil {
		t.Fatal("no best run")
	}
	if err := study.Retrace(o, c); err != nil {
		t.Fatal(err)
	}
	return o
}

// fixtureGraph is a hand-built training step of a three-layer perceptron
// (batch 32, widths 256-1024-1024-10, fp32): forward matmul and ReLU ops,
// their gradients in reverse order reading the kept activations, and an
// SGD update per weight colocated with its layer. Built here rather than
// derived, so that the golden files change only when the engine or the
// reports do.
func fixtureGraph() *workloads.Graph {
	const batch, f32 = 32, 4
	widths := []int64{256, 1024, 1024, 10}
	g := workloads.NewGraph("golden-mlp3", batch)
	act := func(w int64) int64 { return batch * w * f32 }
	in := g.AddOp(workloads.Op{Name: "input", Type: "input", Layer: "input", OutputBytes: act(widths[0])})
	prev := in
	var relu []int
	for l := 1; l < len(widths); l++ {
		name := fmt.Sprintf("fc%d", l)
		w := widths[l-1] * widths[l] * f32
		m := g.AddOp(workloads.Op{Name: name + "/matmul", Type: "matmul", Layer: name, Colocation: name,
			FLOPs: 2 * batch * float64(widths[l-1]*widths[l]), BytesAccessed: act(widths[l-1]) + w + act(widths[l]),
			OutputBytes: act(widths[l]), ParamBytes: w})
		g.AddEdge(prev, m, act(widths[l-1]))
		r := g.AddOp(workloads.Op{Name: name + "/relu", Type: "relu", Layer: name,
			FLOPs: batch * float64(widths[l]), BytesAccessed: 2 * act(widths[l]), OutputBytes: act(widths[l])})
		g.AddEdge(m, r, act(widths[l]))
		relu, prev = append(relu, r), r
	}
	grad := g.AddOp(workloads.Op{Name: "loss/grad", Type: "loss", Layer: "loss", Role: workloads.Backward,
		FLOPs: 4 * batch * 10, BytesAccessed: 2 * act(10), OutputBytes: act(10)})
	g.AddEdge(prev, grad, act(10))
	for l := len(widths) - 1; l >= 1; l-- {
		name := fmt.Sprintf("fc%d", l)
		w := widths[l-1] * widths[l] * f32
		rg := g.AddOp(workloads.Op{Name: name + "/relu/grad", Type: "relu-grad", Layer: name, Role: workloads.Backward,
			FLOPs: batch * float64(widths[l]), BytesAccessed: 3 * act(widths[l]), OutputBytes: act(widths[l])})
		g.AddEdge(grad, rg, act(widths[l]))
		g.AddEdge(relu[l-1], rg, act(widths[l]))
		mg := g.AddOp(workloads.Op{Name: name + "/matmul/grad", Type: "matmul-grad", Layer: name, Role: workloads.Backward, Colocation: name,
			FLOPs: 4 * batch * float64(widths[l-1]*widths[l]), BytesAccessed: 2 * (act(widths[l-1]) + w + act(widths[l])),
			OutputBytes: w + act(widths[l-1])})
		g.AddEdge(rg, mg, act(widths[l]))
		input := in
		if l > 1 {
			input = relu[l-2]
		}
		g.AddEdge(input, mg, act(widths[l-1]))
		up := g.AddOp(workloads.Op{Name: name + "/update", Type: "apply-gradient", Layer: name, Role: workloads.Update, Colocation: name,
			FLOPs: 2 * float64(w/f32), BytesAccessed: 3 * w})
		g.AddEdge(mg, up, w)
		grad = mg
	}
	return g
}
