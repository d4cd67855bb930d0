package workloads_test

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/workloads"
)

func TestComputeStats(t *testing.T) {
	fwd := tinyNet()
	g, err := workloads.DeriveTrainingWith(fwd, workloads.TrainingOptions{Optimizer: workloads.Momentum})
	if err != nil {
		t.Fatal(err)
	}
	s := workloads.ComputeStats(g)
	params := fwd.ParamBytes()
	relu := opByName(t, g, "fc1/relu").OutputBytes
	tests := []struct {
		name      string
		got, want int64
	}{
		{"ops", int64(s.Ops), int64(len(g.Ops))},
		{"forward", int64(s.Forward), int64(len(fwd.Ops))},
		{"ops by role", int64(s.Forward + s.Backward + s.Update), int64(s.Ops)},
		{"update", int64(s.Update), 3}, // fc1 matmul and bias, fc2 matmul
		{"parameters", s.ParamBytes, params},
		{"trainable", s.TrainableBytes, params},
		{"resident", s.ResidentBytes, 3 * params}, // + gradient buffers + momentum
		{"layers", int64(s.Layers), 4},            // input, fc1, fc2, loss
		// the input (fc1's dW), relu's output (its gradient, fc2's dW),
		// xent's output (its gradient) and the loss (the seed waits for it)
		{"saved", s.SavedBytes, opByName(t, g, "input/x").OutputBytes + relu + opByName(t, g, "loss/xent").OutputBytes + opByName(t, g, "loss/mean").OutputBytes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
			}
		})
	}
}

func TestCCR(t *testing.T) {
	g := workloads.Diamond(1e-3, 1000)
	// four edges of 1000 bytes at 1 GB/s = 4 us over four ops of 1 ms
	got := workloads.CCR(g, func(int) float64 { return 1e-3 }, func(b int64) float64 { return float64(b) / 1e9 })
	if want := 4e-6 / 4e-3; !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
		t.Errorf("CCR %g, want %g", got, want)
	}
	if got := workloads.CCR(g, func(int) float64 { return 0 }, func(int64) float64 { return 1 }); got != 0 {
		t.Errorf("CCR without computation %g, want 0", got)
	}
}

// TestLayerFLOPs: the forward FLOPs by layer group are the forward ops'
// FLOPs grouped by the first component of their layer, in order of first
// appearance, and sum to the forward FLOPs.
func TestLayerFLOPs(t *testing.T) {
	const tol = 1e-12
	g := workloads.NewGraph("g", 1)
	add := func(layer string, flops float64, role workloads.Role) {
		g.AddOp(workloads.Op{Name: layer + "/op", Layer: layer, FLOPs: flops, Role: role})
	}
	add("encoder/layer_0/ffn", 3, workloads.Forward)
	add("mlm/transform", 5, workloads.Forward)
	add("encoder/layer_1/ffn", 4, workloads.Forward)
	add("", 1, workloads.Forward)
	add("mlm/transform", 100, workloads.Backward) // not forward work
	s := workloads.ComputeStats(g)
	want := []workloads.GroupFLOPs{{Group: "encoder", Ops: 2, FLOPs: 7}, {Group: "mlm", Ops: 1, FLOPs: 5}, {Group: "-", Ops: 1, FLOPs: 1}}
	if len(s.LayerFLOPs) != len(want) {
		t.Fatalf("groups %+v, want %+v", s.LayerFLOPs, want)
	}
	for i, w := range want {
		if got := s.LayerFLOPs[i]; got.Group != w.Group || got.Ops != w.Ops || !scalar.EqualWithinAbsOrRel(got.FLOPs, w.FLOPs, 0, tol) {
			t.Errorf("group %d = %+v, want %+v", i, got, w)
		}
	}
}
