package pesto_test

import (
	"context"
	"regexp"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/pesto"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// TestExpertRules checks the Expert placements of section 5.2 on the
// zoo's models, op by op from their layer names.
func TestExpertRules(t *testing.T) {
	c, err := devices.NewPreset("2xV100-nvlink+cpu")
	if err != nil {
		t.Fatal(err)
	}
	gpu0, gpu1 := 0, 1
	tests := []struct {
		spec string
		// layer pattern -> device every op of such a layer must be on
		rules map[string]int
	}{
		{"zoo:rnnlm?layers=4&hidden=64&seq=3&vocab=100&batch=4&training=true", map[string]int{
			`^embedding$`: gpu0, `^lstm_0$`: gpu0, `^lstm_1$`: gpu0, `^lstm_2$`: gpu1, `^lstm_3$`: gpu1, `^softmax$`: gpu1}},
		{"zoo:gnmt?layers=2&hidden=64&seq=3&vocab=100&batch=4&training=true", map[string]int{
			`^encoder/embedding$`: gpu0, `^encoder/lstm_0_(fw|bw)$`: gpu0, `^encoder/lstm_1$`: gpu1,
			`^decoder/embedding$`: gpu0, `^decoder/lstm_0$`: gpu0, `^decoder/lstm_1$`: gpu1,
			`^decoder/attention$`: gpu1, `^decoder/softmax$`: gpu1}},
		{"zoo:transformer?layers=2&hidden=64&heads=2&seq=4&vocab=100&batch=2&training=true", map[string]int{
			`^encoder/layer_0/`: gpu0, `^encoder/layer_1/`: gpu1, `^decoder/layer_0/`: gpu0, `^decoder/layer_1/`: gpu1,
			`^decoder/softmax$`: gpu1}},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			g, err := zoo.Build(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			plan := placeExpert(t, g, c)
			for pat, want := range tc.rules {
				re := regexp.MustCompile(pat)
				n := 0
				for i := range g.Ops {
					if !re.MatchString(g.Ops[i].Layer) {
						continue
					}
					n++
					if plan.Device[i] != want {
						t.Errorf("op %q (layer %s) on device %d, want %d", g.Ops[i].Name, g.Ops[i].Layer, plan.Device[i], want)
						break
					}
				}
				if n == 0 {
					t.Errorf("no op of layer %s: the rule tests nothing", pat)
				}
			}
		})
	}
}

// TestExpertNASNetBranches: every cell's branches are spread over both
// GPUs, with about the same compute on each.
func TestExpertNASNetBranches(t *testing.T) {
	c, _ := devices.NewPreset("2xV100-nvlink+cpu")
	g, err := zoo.Build("zoo:nasnet?cells=1&filters=16&image=96&batch=2&training=true")
	if err != nil {
		t.Fatal(err)
	}
	plan := placeExpert(t, g, c)
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	branch := regexp.MustCompile(`^((?:cell_stem|cell|reduction_cell)_\d+)/branch_\d+/`)
	type load struct{ gpu [2]float64 }
	cells := map[string]*load{}
	for i := range g.Ops {
		m := branch.FindStringSubmatch(g.Ops[i].Layer + "/")
		if m == nil {
			continue
		}
		l := cells[m[1]]
		if l == nil {
			l = &load{}
			cells[m[1]] = l
		}
		l.gpu[plan.Device[i]] += est.OpTime(i, plan.Device[i])
	}
	if len(cells) < 3 {
		t.Fatalf("%d cells with branches", len(cells))
	}
	for name, l := range cells {
		if l.gpu[0] == 0 || l.gpu[1] == 0 {
			t.Errorf("cell %s: branches all on one GPU (%v)", name, l.gpu)
		}
	}
}

func placeExpert(t *testing.T, g *workloads.Graph, c *devices.Cluster) *engine.Plan {
	t.Helper()
	p, err := placers.Typed(pesto.NewExpert)(nil)
	if err != nil {
		t.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.Place(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est})
	if err != nil {
		t.Fatal(err)
	}
	if err := placers.CheckColocation(g, plan); err != nil {
		t.Fatal(err)
	}
	return plan
}
