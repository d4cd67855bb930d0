package reports_test

import (
	"context"
	"errors"
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
// single placer needs 9.83 MiB and runs out; round-robin and random fit.
const fixtureMemory = 9 << 20

// fixtureTimeout is the slow placer's time limit.
const fixtureTimeout = 150 * time.Millisecond

// fixture is a small fixed comparison: a training MLP on two accelerators
// with the baselines (one OOM) and three placers that fail, panic and time
// out. reproducible leaves placement times out (null).
func fixture(t testing.TB, reproducible bool) ([]*study.Outcome, *devices.Cluster) {
	t.Helper()
	g, err := workloads.DeriveTraining(workloads.MLP(32, []int{256, 1024, 1024, 10}))
	if err != nil {
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
		if err := reg.Register(p.Name(), "test placer", func(placers.Options) (placers.Placer, error) { return p, nil }); err != nil {
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
func tracedBest(t testing.TB, rows []*study.Outcome, c *devices.Cluster) *study.Outcome {
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
