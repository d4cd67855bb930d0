// Package placertest is a conformance suite for placers, as
// testing/fstest.TestFS is for file systems: Run checks any placer on a set
// of graphs and clusters for the properties every placer must have.
package placertest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
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
	// placers.ErrDoesNotFit, with the numbers, when a graph cannot fit, and
	// their plans for the memory graphs (MemoryGraphs) must run without
	// OOM; others may return a plan whose simulation reports OOM instead.
	// A placer that implements placers.MemoryAware must declare the same.
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

// MemoryCluster is the preset the memory graphs are sized for.
const MemoryCluster = "4xV100-pcie"

// MemoryGraphs returns graphs of three shapes whose memory fits on the
// cluster c (MemoryCluster) but not on one of its devices: a training MLP
// of equal layers (a chain of colocation units that span the forward and
// backward passes, 2.2 devices of parameters, gradients and optimizer
// state), a fork-join inference graph (parallel branches, 2 devices of
// parameters) and a random layered training graph whose activations kept
// for the backward pass weigh too (1.6 devices of parameters, activations
// a third of a device). Sizes are fractions of c's smallest accelerator.
func MemoryGraphs(c *devices.Cluster) ([]*workloads.Graph, error) {
	acc, _ := placers.Targets(c)
	dev := c.Devices[acc[0]].Memory
	for _, d := range acc {
		dev = min(dev, c.Devices[d].Memory)
	}
	scaleParams := func(g *workloads.Graph, total float64) {
		var have int64
		for i := range g.Ops {
			have += g.Ops[i].ParamBytes
		}
		for i := range g.Ops {
			g.Ops[i].ParamBytes = int64(float64(g.Ops[i].ParamBytes) / float64(have) * total)
		}
	}
	mlp, err := workloads.DeriveTraining(workloads.MLP(64, []int{2048, 2048, 2048, 2048, 2048, 2048}))
	if err != nil {
		return nil, err
	}
	mlp.Name = "mem-mlp-training"
	scaleParams(mlp, 2.2*float64(dev))

	fj := workloads.ForkJoin(3, 2, 1e-3, 64<<20)
	fj.Name = "mem-forkjoin"
	for i := range fj.Ops {
		fj.Ops[i].ParamBytes = 1
	}
	scaleParams(fj, 2.0*float64(dev))

	fwd := workloads.RandomLayered(10, 2, 11)
	var out int64
	for i := range fwd.Ops {
		fwd.Ops[i].ParamBytes = int64(1 + i%7)
		out += fwd.Ops[i].OutputBytes
	}
	act := float64(dev) / 3
	for i := range fwd.Ops {
		fwd.Ops[i].OutputBytes = int64(float64(fwd.Ops[i].OutputBytes) / float64(out) * act)
	}
	for i := range fwd.Edges {
		u := fwd.Edges[i].From
		fwd.Edges[i].Bytes = fwd.Ops[u].OutputBytes
	}
	rnd, err := workloads.DeriveTraining(fwd)
	if err != nil {
		return nil, err
	}
	rnd.Name = "mem-random-training"
	scaleParams(rnd, 1.6*float64(dev))
	gs := []*workloads.Graph{mlp, fj, rnd}
	for _, g := range gs {
		if err := g.Validate(); err != nil {
			return nil, fmt.Errorf("memory graph %s: %w", g.Name, err)
		}
	}
	return gs, nil
}

// Run checks placer p: on every graph and cluster it returns a valid plan
// (every op on an existing device, CPU-only ops on a CPU), colocation
// groups kept, the same plan twice for the same seed, a plan the engine
// simulates; and on a graph too large for the cluster no panic, and a clear
// error or a plan whose simulation reports OOM. A memory-aware placer
// (cfg.MemoryAware, which must agree with what the placer declares through
// placers.MemoryAware) must also place the memory graphs (MemoryGraphs) on
// MemoryCluster with plans that run without OOM (or refuse one with
// placers.ErrDoesNotFit and the numbers, but not all three), and fail on
// the graph too large with placers.ErrDoesNotFit and the numbers.
func Run(t *testing.T, p placers.Placer, cfg Config) {
	t.Helper()
	if m, ok := p.(placers.MemoryAware); ok && m.MemoryAware() != cfg.MemoryAware {
		t.Errorf("%s declares MemoryAware() = %v, the test's config says %v", p.Name(), m.MemoryAware(), cfg.MemoryAware)
	}
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
	if !cfg.MemoryAware {
		return
	}
	c, err := devices.Resolve(MemoryCluster)
	if err != nil {
		t.Fatalf("cluster %s: %v", MemoryCluster, err)
	}
	gs, err := MemoryGraphs(c)
	if err != nil {
		t.Fatal(err)
	}
	placed := 0
	for _, g := range gs {
		t.Run(fmt.Sprintf("%s/%s/%s", p.Name(), MemoryCluster, g.Name), func(t *testing.T) {
			if checkFits(t, p, g, c, cfg) {
				placed++
			}
		})
	}
	if placed == 0 {
		t.Errorf("%s refused every memory graph (%d, each about half of %s's memory): its plans were never checked for OOM", p.Name(), len(gs), MemoryCluster)
	}
}

// checkFits places a graph that fits the cluster but not one device and
// plays the plan: a memory-aware placer's plan must not run out of memory;
// a placer that finds no plan must fail with ErrDoesNotFit and the numbers.
// It reports whether the placer returned a plan that ran.
func checkFits(t *testing.T, p placers.Placer, g *workloads.Graph, c *devices.Cluster, cfg Config) bool {
	plan, err := place(p, g, c, 7, cfg.Timeout)
	if errors.Is(err, placers.ErrDoesNotFit) {
		// a heuristic may not find a split that exists; it must say so
		if !bytesRE.MatchString(err.Error()) {
			t.Fatalf("ErrDoesNotFit gives no numbers (bytes asked, memory free): %v", err)
		}
		t.Logf("does not fit (allowed, with the numbers): %v", err)
		return false
	}
	if err != nil {
		t.Fatalf("Place on a graph that fits the cluster: %v", err)
	}
	res, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	if res.OOM != nil {
		t.Fatalf("memory-aware placer's plan runs out of memory: %v", res.OOM.Err())
	}
	return true
}

// bytesRE matches a byte count as the placers print one.
var bytesRE = regexp.MustCompile(`[0-9] ?(B|KiB|MiB|GiB|TiB|bytes)\b`)

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
		// every built-in graph fits on one device: no placer may give up
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
		if cfg.MemoryAware && !bytesRE.MatchString(err.Error()) {
			t.Fatalf("memory-aware placer's ErrDoesNotFit gives no numbers (bytes asked, memory free): %v", err)
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
