// Package placertest is a conformance suite for placers, as
// testing/fstest.TestFS is for file systems: Run checks any placer on a set
// of graphs and clusters for the properties every placer must have.
package placertest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
)

// Config tunes Run.
type Config struct {
	// MemoryAware placers must fail with an error wrapping
	// placers.ErrDoesNotFit when a graph cannot fit; others may return a
	// plan whose simulation reports OOM instead.
	MemoryAware bool
	// Graphs are added to the built-in set (e.g. zoo models).
	Graphs []*workloads.Graph
	// Clusters replace the default presets ("4xV100-pcie", "2xV100-nvlink+cpu").
	Clusters []string
	// Timeout bounds each Place call (default 2 minutes).
	Timeout time.Duration
}

// Graphs returns the built-in conformance graphs: a chain, a diamond, a
// fork-join, an MLP, and an MLP with colocation groups (a layer's ops
// together).
func Graphs() []*workloads.Graph {
	co := workloads.MLP(64, []int{256, 512, 512, 10})
	co.Name = "mlp-colocated"
	for i := range co.Ops {
		co.Ops[i].Colocation = co.Ops[i].Layer
	}
	return []*workloads.Graph{
		workloads.Chain(12, []float64{1e-3, 2e-3}, 1<<20),
		workloads.Diamond(1e-3, 4<<20),
		workloads.ForkJoin(4, 3, 5e-4, 1<<20),
		workloads.MLP(128, []int{1024, 4096, 4096, 1000}),
		co,
	}
}

// Run checks placer p: on every graph and cluster it returns a valid plan
// (every op on an existing device, CPU-only ops on a CPU), colocation
// groups kept, the same plan twice for the same seed, a plan the engine
// simulates; and on a graph too large for the cluster no panic, and a clear
// error or a plan whose simulation reports OOM.
func Run(t *testing.T, p placers.Placer, cfg Config) {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Minute
	}
	clusters := cfg.Clusters
	if clusters == nil {
		clusters = []string{"4xV100-pcie", "2xV100-nvlink+cpu"}
	}
	graphs := append(Graphs(), cfg.Graphs...)
	for _, cn := range clusters {
		c, err := devices.Resolve(cn)
		if err != nil {
			t.Fatalf("cluster %s: %v", cn, err)
		}
		for _, g := range graphs {
			t.Run(fmt.Sprintf("%s/%s/%s", p.Name(), cn, g.Name), func(t *testing.T) {
				checkPlacer(t, p, g, c, cfg)
			})
		}
		t.Run(fmt.Sprintf("%s/%s/too-large", p.Name(), cn), func(t *testing.T) {
			checkTooLarge(t, p, c, cfg)
		})
	}
}

func place(p placers.Placer, g *workloads.Graph, c *devices.Cluster, seed uint64, timeout time.Duration) (plan *engine.Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("placer %s panicked: %v", p.Name(), r)
		}
	}()
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{Mode: devices.Exact})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return p.Place(ctx, &placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: seed})
}

func checkPlacer(t *testing.T, p placers.Placer, g *workloads.Graph, c *devices.Cluster, cfg Config) {
	if err := g.Validate(); err != nil {
		t.Fatalf("test graph invalid: %v", err)
	}
	plan, err := place(p, g, c, 7, cfg.Timeout)
	if err != nil {
		if cfg.MemoryAware && errors.Is(err, placers.ErrDoesNotFit) {
			t.Skipf("graph does not fit: %v", err)
		}
		t.Fatalf("Place: %v", err)
	}
	if plan == nil {
		t.Fatal("Place returned a nil plan and no error")
	}
	pg := g
	if plan.Graph != nil {
		pg = plan.Graph
		if err := pg.Validate(); err != nil {
			t.Fatalf("rewritten graph invalid: %v", err)
		}
	}
	if err := plan.Validate(g, c); err != nil {
		t.Fatalf("plan invalid: %v", err)
	}
	if err := placers.CheckColocation(pg, plan); err != nil {
		t.Fatal(err)
	}
	again, err := place(p, g, c, 7, cfg.Timeout)
	if err != nil {
		t.Fatalf("second Place with the same seed: %v", err)
	}
	if !reflect.DeepEqual(plan.Device, again.Device) || !reflect.DeepEqual(plan.Priority, again.Priority) || !reflect.DeepEqual(plan.Order, again.Order) {
		t.Fatal("not deterministic: two Place calls with the same seed gave different plans")
	}
	res, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		t.Fatalf("simulate the plan: %v", err)
	}
	if !(res.StepTime > 0) {
		t.Fatalf("step time %g, want > 0", res.StepTime)
	}
}

// checkTooLarge gives the placer a graph whose parameters exceed the
// cluster's total memory.
func checkTooLarge(t *testing.T, p placers.Placer, c *devices.Cluster, cfg Config) {
	g := workloads.MLP(8, []int{1024, 4096, 4096, 1000})
	g.Name = "too-large"
	per := 2*c.TotalMemory()/int64(len(g.Ops)) + 1
	for i := range g.Ops {
		g.Ops[i].ParamBytes = per
	}
	plan, err := place(p, g, c, 7, cfg.Timeout)
	if err != nil {
		if cfg.MemoryAware && !errors.Is(err, placers.ErrDoesNotFit) {
			t.Fatalf("memory-aware placer's error does not wrap ErrDoesNotFit: %v", err)
		}
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
		return
	}
	if cfg.MemoryAware {
		t.Fatal("memory-aware placer returned a plan for a graph twice the cluster's memory")
	}
	res, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	if res.OOM == nil {
		t.Fatal("plan for a graph twice the cluster's memory simulated without OOM")
	}
}
