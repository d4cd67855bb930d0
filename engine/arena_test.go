package engine_test

import (
	"reflect"
	"sync"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads/zoo"
)

// TestResultsIndependentOfReuse: a simulation's working arrays are reused
// by the next (engine/arena.go), so results must not depend on what ran
// before. Plans of every regime over graphs of different sizes (with and
// without a trace, one running out of memory) are simulated once each,
// then all of them again by 4 goroutines in different orders, and every
// result must equal the first one exactly.
func TestResultsIndependentOfReuse(t *testing.T) {
	c, err := devices.NewPreset("8xV100-nvlink")
	if err != nil {
		t.Fatal(err)
	}
	type job struct {
		name string
		run  func() (*engine.Result, error)
	}
	var jobs []job
	for _, spec := range []string{"mlp?training=true", "resnet50?training=true&batch=32", "transformer?layers=2&training=true"} {
		g, err := zoo.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range goldenRegimes {
			plan, err := r.plan(g, c)
			if err != nil {
				t.Fatal(err)
			}
			for _, trace := range []bool{false, true} {
				jobs = append(jobs, job{spec + "/" + r.name, func() (*engine.Result, error) {
					return engine.Simulate(g, c, plan, engine.Options{Trace: trace})
				}})
			}
		}
	}
	// one that runs out of memory: 1 GiB devices
	small := c.Clone()
	for d := range small.Devices {
		small.Devices[d].Kind.Memory = 1 << 30
	}
	g, err := zoo.Build("resnet50?training=true&batch=256")
	if err != nil {
		t.Fatal(err)
	}
	jobs = append(jobs, job{"oom", func() (*engine.Result, error) {
		return engine.Simulate(g, small, &engine.Plan{Device: make([]int, len(g.Ops))}, engine.Options{})
	}})
	want := make([]*engine.Result, len(jobs))
	for i, j := range jobs {
		if want[i], err = j.run(); err != nil {
			t.Fatalf("%s: %v", j.name, err)
		}
	}
	if want[len(want)-1].OOM == nil {
		t.Fatal("the 1 GiB run did not run out of memory")
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				i := (k*(2*w+1) + w) % len(jobs) // a different order per goroutine
				got, err := jobs[i].run()
				if err != nil {
					t.Errorf("%s: %v", jobs[i].name, err)
					return
				}
				if !reflect.DeepEqual(got, want[i]) {
					t.Errorf("%s: the result differs when simulated again (worker %d)", jobs[i].name, w)
					return
				}
			}
		}()
	}
	wg.Wait()
}
