package placertest

import (
	"fmt"
	"testing"
	"time"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// RegimeModels are the zoo models RunRegimes plays: small enough that a
// placer and four simulations per model take well under a second, of three
// shapes (a chain of dense layers, an encoder-decoder with attention, a
// deep convolutional chain), all with their backward and update ops.
var RegimeModels = []string{
	"zoo:mlp?training=true",
	"zoo:transformer?layers=1&granularity=layer&training=true",
	"zoo:vgg19?granularity=layer&training=true&batch=8",
}

// RegimeCluster is the preset RunRegimes places on.
const RegimeCluster = "4xV100-pcie"

// PlayRegime is one execution regime of RunRegimes: a micro-batch
// pipeline, data-parallel replicas, or both (as `placesim compare
// --regimes step,1f1b:4,dp:2,1f1b:4+dp:2` plays them).
type PlayRegime struct {
	Name     string
	Pipeline *engine.Pipeline
	Replicas int
}

// Regimes are the regimes RunRegimes plays every plan in.
func Regimes() []PlayRegime {
	return []PlayRegime{
		{Name: "step"},
		{Name: "1f1b:4", Pipeline: &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: 4}},
		{Name: "gpipe:4", Pipeline: &engine.Pipeline{Schedule: engine.GPipe, MicroBatches: 4}},
		{Name: "dp:2", Replicas: 2},
		{Name: "1f1b:4+dp:2", Pipeline: &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: 4}, Replicas: 2},
	}
}

// RunRegimes checks that p's plans play in every regime (Regimes) on the
// zoo models (RegimeModels): placed as the study places them (on one
// replica's accelerators under data parallelism), with the pipeline or
// replicas added the way a comparison adds them, the engine simulates
// every plan to the end (no deadlock, no error). A plan that replicates the
// model itself (a data-parallel placer) is played only as it is, since a
// comparison does not play it in another regime. Out of memory is
// allowed for a placer that is not memory-aware; a memory-aware placer's
// plan must fit in the step it was made for.
func RunRegimes(t *testing.T, p placers.Placer, cfg Config) {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Minute
	}
	c, err := devices.Resolve(RegimeCluster)
	if err != nil {
		t.Fatalf("cluster %s: %v", RegimeCluster, err)
	}
	for _, spec := range RegimeModels {
		g, err := zoo.Build(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		for _, r := range Regimes() {
			t.Run(fmt.Sprintf("%s/%s/%s", p.Name(), spec, r.Name), func(t *testing.T) {
				checkRegime(t, p, g, c, r, cfg)
			})
		}
	}
}

// checkRegime places g for regime r and simulates the plan in r.
func checkRegime(t *testing.T, p placers.Placer, g *workloads.Graph, c *devices.Cluster, r PlayRegime, cfg Config) {
	pc, back := c, []int(nil)
	if r.Replicas > 1 {
		var err error
		pc, back, err = replicaCluster(c, r.Replicas)
		if err != nil {
			t.Fatal(err)
		}
	}
	plan, err := place(p, g, pc, 7, cfg.Timeout)
	if err != nil {
		t.Fatalf("Place on %s: %v", pc.Name, err)
	}
	if plan == nil {
		t.Fatal("Place returned a nil plan and no error")
	}
	if d := plan.DataParallel; d != nil && d.Replicas > 1 {
		if r.Pipeline != nil || r.Replicas > 1 {
			t.Skipf("the placer replicates the model itself (x%d): a comparison plays it only as its own plan", d.Replicas)
		}
		simulate(t, g, pc, plan, cfg, r)
		return
	}
	play := *plan
	play.Pipeline, play.DataParallel = nil, nil
	if back != nil {
		play.Device = make([]int, len(plan.Device))
		for i, d := range plan.Device {
			play.Device[i] = back[d]
		}
		if plan.Order != nil {
			play.Order = make([][]int, len(c.Devices))
			for d, ops := range plan.Order {
				play.Order[back[d]] = ops
			}
		}
	}
	if r.Pipeline != nil {
		pl := *r.Pipeline
		play.Pipeline = &pl
		play.Order, play.Priority = nil, nil // the schedule fixes each device's order
	}
	if r.Replicas > 1 {
		play.DataParallel = &engine.DataParallel{Replicas: r.Replicas}
	}
	simulate(t, g, c, &play, cfg, r)
}

func simulate(t *testing.T, g *workloads.Graph, c *devices.Cluster, plan *engine.Plan, cfg Config, r PlayRegime) {
	res, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		t.Fatalf("simulate in %s: %v", r.Name, err)
	}
	if res.OOM != nil {
		if cfg.MemoryAware && r.Name == "step" {
			t.Fatalf("memory-aware placer's plan runs out of memory in the step it was made for: %v", res.OOM.Err())
		}
		t.Logf("out of memory in %s (allowed for a plan made for a step): %v", r.Name, res.OOM.Err())
		return
	}
	if !(res.StepTime > 0) {
		t.Fatalf("step time %g in %s, want > 0", res.StepTime, r.Name)
	}
}

// replicaCluster is the cluster a placer is given under n data-parallel
// replicas: c's first floor(A/n) accelerators, as study's placement
// cluster; back maps its devices to c's.
func replicaCluster(c *devices.Cluster, n int) (*devices.Cluster, []int, error) {
	accs := c.Accelerators()
	k := len(accs) / n
	if k < 1 {
		return nil, nil, fmt.Errorf("%d replicas need %d accelerators, %s has %d", n, n, c.Name, len(accs))
	}
	back := accs[:k]
	devs := make([]devices.Device, k)
	for i, d := range back {
		devs[i] = c.Devices[d]
	}
	pc, err := devices.NewCluster(fmt.Sprintf("%s[replica of %d]", c.Name, k), c.Topology, devs)
	if err != nil {
		return nil, nil, err
	}
	return pc, back, nil
}
