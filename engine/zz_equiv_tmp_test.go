package engine_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// TestZZEquivDump writes a full-precision digest of many simulations.
func TestZZEquivDump(t *testing.T) {
	path := os.Getenv("ZZ_EQUIV")
	if path == "" {
		t.Skip()
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dump := func(name string, r *engine.Result, err error) {
		if err != nil {
			fmt.Fprintf(f, "%s error %v\n", name, err)
			return
		}
		h := sha256.New()
		for i := range r.OpStart {
			fmt.Fprintf(h, "%x %x\n", math.Float64bits(r.OpStart[i]), math.Float64bits(r.OpEnd[i]))
		}
		b, _ := json.Marshal(r)
		h.Write(b)
		if r.Trace != nil {
			b, _ = json.Marshal(r.Trace)
			h.Write(b)
		}
		if r.Instances != nil {
			b, _ = json.Marshal(r.Instances)
			h.Write(b)
		}
		fmt.Fprintf(f, "%s step %x events %d %x\n", name, math.Float64bits(r.StepTime), r.Events, h.Sum(nil))
	}
	for _, spec := range goldenModels {
		g, err := zoo.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, cn := range goldenClusters {
			c, _ := devices.NewPreset(cn)
			for _, reg := range goldenRegimes {
				plan, err := reg.plan(g, c)
				if err != nil {
					continue
				}
				for _, tr := range []bool{false, true} {
					r, err := engine.Simulate(g, c, plan, engine.Options{Trace: tr})
					dump(fmt.Sprintf("%s/%s/%s/trace=%v", spec, cn, reg.name, tr), r, err)
				}
			}
		}
	}
	for _, cn := range []string{"4xV100-pcie", "8xV100-nvlink-2node", "8xA100-nvswitch"} {
		c, _ := devices.NewPreset(cn)
		nd := len(c.Devices)
		for _, n := range []int{3000, 20000} {
			g := workloads.RandomLayered(n, 64, uint64(n))
			plan := &engine.Plan{Device: make([]int, n)}
			pp := &engine.Plan{Device: make([]int, n), Priority: make([]float64, n)}
			for i := range plan.Device {
				plan.Device[i] = (i * 7 / 3) % nd
				pp.Device[i] = i % nd
				pp.Priority[i] = float64((i * 13) % 17)
			}
			for _, tr := range []bool{false, true} {
				r, err := engine.Simulate(g, c, plan, engine.Options{Trace: tr})
				dump(fmt.Sprintf("random%d/%s/trace=%v", n, cn, tr), r, err)
				r, err = engine.Simulate(g, c, pp, engine.Options{Trace: tr})
				dump(fmt.Sprintf("random%d-prio/%s/trace=%v", n, cn, tr), r, err)
			}
		}
	}
	c, _ := devices.NewPreset("4xV100-pcie")
	for _, spec := range []string{"transformer?layers=4&heads=16&hidden=2048&batch=64&training=true&framework=tf1-graph", "bert?layers=4&training=true", "gpt?training=true", "inception_v3?training=true", "nasnet?training=true"} {
		g, err := zoo.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		topo, _ := g.TopoOrder()
		plan := &engine.Plan{Device: make([]int, len(g.Ops))}
		for i, v := range topo {
			plan.Device[v] = i * 4 / len(topo)
		}
		for _, tr := range []bool{false, true} {
			r, err := engine.Simulate(g, c, plan, engine.Options{Trace: tr})
			dump(fmt.Sprintf("%s/trace=%v", spec, tr), r, err)
		}
		dev, stages, err := engine.EvenStages(g, []int{0, 1, 2, 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, sched := range []engine.Schedule{engine.OneFOneB, engine.GPipe, engine.PipeDream} {
			for _, rc := range []bool{false, true} {
				p := &engine.Plan{Device: dev, Pipeline: &engine.Pipeline{Schedule: sched, MicroBatches: 8, Stages: stages, Recompute: rc}}
				r, err := engine.Simulate(g, c, p, engine.Options{Trace: true})
				dump(fmt.Sprintf("%s/%s/rc=%v", spec, sched, rc), r, err)
			}
		}
	}
}
