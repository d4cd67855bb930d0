package zoo_test

import (
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// bigDevice is one V100 with memory enough for any training step.
const bigDevice = `
name: one-big-gpu
kinds:
  - {name: big-v100, base: V100-32GB, memory: 64TiB}
devices:
  - {name: gpu0, kind: big-v100}
links: []
`

// savedActivations is the bytes of forward outputs read by backward ops:
// all of them are alive when the loss has been computed, since each is
// freed only after a gradient that runs after the loss.
func savedActivations(g *workloads.Graph) int64 {
	var s int64
	for i := range g.Ops {
		if g.Ops[i].Role != workloads.Forward {
			continue
		}
		for _, eid := range g.Out(i) {
			if g.Ops[g.Edges[eid].To].Role == workloads.Backward {
				s += g.Ops[i].OutputBytes
				break
			}
		}
	}
	return s
}

// TestTrainingInvariants checks every model's training step at both
// granularities: acyclic; every forward op with trainable parameters has a
// gradient and an update op in its colocation group, whose gradients add
// up to its parameters; on one large device the simulated peak memory is
// at least parameters + gradients + optimizer state + the activations kept
// for the backward pass.
func TestTrainingInvariants(t *testing.T) {
	big, err := devices.ParseCluster([]byte(bigDevice))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range zoo.Names() {
		for _, gran := range []string{"op", "layer"} {
			t.Run(name+"/"+gran, func(t *testing.T) {
				g := build(t, name+"?"+small[name]+"&training=true&granularity="+gran)
				if _, err := g.TopoOrder(); err != nil {
					t.Fatal(err)
				}
				checkGroups(t, g, gran == "op")
				res, err := engine.Simulate(g, big, &engine.Plan{Device: make([]int, len(g.Ops))}, engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if res.OOM != nil {
					t.Fatalf("OOM on a 64 TiB device: %+v", res.OOM)
				}
				resident, saved := g.ParamBytes(), savedActivations(g)
				peak := res.Devices[0].PeakMemory
				if peak < resident+saved {
					t.Errorf("peak %d bytes < parameters, gradients and optimizer state %d + saved activations %d", peak, resident, saved)
				}
				var upper int64 = resident
				for i := range g.Ops {
					upper += g.Ops[i].OutputBytes + g.Ops[i].TempBytes
				}
				if peak > upper {
					t.Errorf("peak %d bytes > every buffer at once %d", peak, upper)
				}
				if saved == 0 {
					t.Error("no forward activation is kept for the backward pass")
				}
			})
		}
	}
}

// checkGroups checks the colocation groups of the trainable forward ops.
// exact: the update ops' gradients add up to the op's parameters (at layer
// granularity a layer's parameters also hold batch-norm statistics).
func checkGroups(t *testing.T, g *workloads.Graph, exact bool) {
	t.Helper()
	type group struct {
		backward, update int
		gradBytes        int64
	}
	groups := map[string]*group{}
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.Colocation == "" {
			continue
		}
		gr := groups[op.Colocation]
		if gr == nil {
			gr = &group{}
			groups[op.Colocation] = gr
		}
		switch op.Role {
		case workloads.Backward:
			gr.backward++
		case workloads.Update:
			gr.update++
			for _, eid := range g.In(i) {
				gr.gradBytes += g.Edges[eid].Bytes
			}
		}
	}
	checked := 0
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.Role != workloads.Forward || op.ParamBytes == 0 || workloads.GradRuleFor(op.Type).NoGradient {
			continue
		}
		checked++
		gr := groups[op.Colocation]
		switch {
		case op.Colocation == "" || gr == nil:
			t.Errorf("op %q has parameters but no colocation group", op.Name)
		case gr.backward == 0 || gr.update == 0:
			t.Errorf("op %q: group %q has %d gradient and %d update ops", op.Name, op.Colocation, gr.backward, gr.update)
		case exact && gr.gradBytes != op.ParamBytes, gr.gradBytes > op.ParamBytes:
			t.Errorf("op %q: its updates read %d bytes of gradients, its parameters are %d bytes", op.Name, gr.gradBytes, op.ParamBytes)
		}
	}
	if checked == 0 {
		t.Error("no op with parameters")
	}
}

// TestGPT2XLDoesNotFitV100: training GPT-2 XL (1.56 B parameters) with
// every op on one 16 GB V100 (the single placement) runs out of memory;
// its parameters, gradients and Adam moments alone exceed 16 GiB.
func TestGPT2XLDoesNotFitV100(t *testing.T) {
	g := build(t, "gpt?size=xl&batch=1&training=true&attention=fused")
	c, err := devices.NewPreset("1xV100")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Devices) != 1 || c.Devices[0].Memory != 16<<30 {
		t.Fatalf("preset 1xV100 is not one 16 GiB device: %+v", c.Devices)
	}
	if r := g.ParamBytes(); r <= c.Devices[0].Memory {
		t.Errorf("parameters + gradients + Adam state = %d bytes fit in %d", r, c.Devices[0].Memory)
	}
	res, err := engine.Simulate(g, c, &engine.Plan{Device: make([]int, len(g.Ops))}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.OOM == nil {
		t.Fatalf("no OOM: peak %d bytes on a %d-byte device", res.Devices[0].PeakMemory, c.Devices[0].Memory)
	}
	t.Logf("GPT-2 XL: resident %.1f GiB, peak demand %.1f GiB on a 16 GiB V100; OOM at op %q", float64(g.ParamBytes())/(1<<30), float64(res.Devices[0].PeakMemory)/(1<<30), res.OOM.OpName)
}
