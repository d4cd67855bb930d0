package workloads_test

import (
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/workloads"
)

// tol is the relative tolerance of FLOP comparisons.
const tol = 1e-12

// tinyNet is input -> fc1 (matmul, bias, relu) -> fc2 (matmul) -> xent
// (with labels) -> mean: a loss with two parameterised layers.
func tinyNet() *workloads.Graph {
	g := workloads.NewGraph("tiny", 8)
	add := func(name, typ string, flops float64, out, params int64, ins ...int) int {
		id := g.AddOp(workloads.Op{Name: name, Type: typ, Layer: strings.Split(name, "/")[0], FLOPs: flops,
			BytesAccessed: out, OutputBytes: out, ParamBytes: params})
		for _, in := range ins {
			g.AddEdge(in, id, g.Ops[in].OutputBytes)
		}
		return id
	}
	x := add("input/x", "input", 0, 8*16*4, 0)
	y := add("input/labels", "labels", 0, 8*4, 0)
	m1 := add("fc1/matmul", "matmul", 2*8*16*32, 8*32*4, 16*32*4, x)
	b1 := add("fc1/bias", "bias-add", 8*32, 8*32*4, 32*4, m1)
	r1 := add("fc1/relu", "relu", 8*32, 8*32*4, 0, b1)
	m2 := add("fc2/matmul", "matmul", 2*8*32*10, 8*10*4, 32*10*4, r1)
	xe := add("loss/xent", "sparse-softmax-xent", 5*8*10, 8*4, 0, m2, y)
	add("loss/mean", "mean", 8, 4, 0, xe)
	return g
}

func opByName(t *testing.T, g *workloads.Graph, name string) *workloads.Op {
	t.Helper()
	for i := range g.Ops {
		if g.Ops[i].Name == name {
			return &g.Ops[i]
		}
	}
	t.Fatalf("graph %q has no op %q", g.Name, name)
	return nil
}

func hasOp(g *workloads.Graph, name string) bool {
	for i := range g.Ops {
		if g.Ops[i].Name == name {
			return true
		}
	}
	return false
}

func hasEdge(g *workloads.Graph, from, to string) bool {
	for _, e := range g.Edges {
		if g.Ops[e.From].Name == from && g.Ops[e.To].Name == to {
			return true
		}
	}
	return false
}

func TestDeriveTrainingRules(t *testing.T) {
	fwd := tinyNet()
	g, err := workloads.DeriveTrainingWith(fwd, workloads.TrainingOptions{Optimizer: workloads.Adam})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("training graph invalid: %v", err)
	}
	t.Run("ops", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			want bool
		}{
			{"input/x/grad", false},          // inputs need no gradient
			{"input/labels/grad", false},     // nor labels
			{"fc1/matmul/grad", false},       // its input needs no gradient
			{"fc1/matmul/grad_weight", true}, // but its weights do
			{"fc1/matmul/update", true},
			{"fc1/bias/grad", true}, // dX and the bias gradient in one op
			{"fc1/bias/update", true},
			{"fc1/relu/grad", true},
			{"fc2/matmul/grad", true},
			{"fc2/matmul/grad_weight", true},
			{"loss/mean/grad", true},
			{"fc1/relu/update", false}, // no parameters
		} {
			if hasOp(g, tc.name) != tc.want {
				t.Errorf("op %q present = %v, want %v", tc.name, !tc.want, tc.want)
			}
		}
	})
	t.Run("fixed bytes", func(t *testing.T) {
		// the parameter-sized tensors a gradient op reads or writes
		// whole are its FixedBytes: dX = dY·Wᵀ reads W, dW and the bias
		// gradient write the parameter's gradient; relu's has none
		for _, tc := range []struct {
			name string
			want int64
		}{
			{"fc2/matmul/grad", 32 * 10 * 4},
			{"fc2/matmul/grad_weight", 32 * 10 * 4},
			{"fc1/matmul/grad_weight", 16 * 32 * 4},
			{"fc1/bias/grad", 32 * 4},
			{"fc1/relu/grad", 0},
		} {
			op := opByName(t, g, tc.name)
			if op.FixedBytes != tc.want || op.FixedBytes > op.BytesAccessed {
				t.Errorf("%s: fixed bytes %d of %d, want %d", tc.name, op.FixedBytes, op.BytesAccessed, tc.want)
			}
		}
	})
	t.Run("saved activations", func(t *testing.T) {
		for _, tc := range []struct {
			from, to string
			want     bool
		}{
			{"fc1/relu", "fc1/relu/grad", true},          // relu's gradient reads its output
			{"fc1/relu", "fc2/matmul/grad_weight", true}, // dW = Xᵀ·dY reads the input
			{"fc1/relu", "fc2/matmul/grad", false},       // dX = dY·Wᵀ reads the weights only
			{"fc2/matmul/grad", "fc1/relu/grad", true},   // the gradient flows back
			{"fc1/bias", "fc1/bias/grad", false},         // bias-add saves nothing
			{"loss/mean", "loss/mean/grad", true},        // the seed waits for the loss
			{"loss/xent", "loss/xent/grad", true},        // xent keeps its backprop
			{"fc1/matmul/grad_weight", "fc1/matmul/update", true},
		} {
			if hasEdge(g, tc.from, tc.to) != tc.want {
				t.Errorf("edge %q -> %q present = %v, want %v", tc.from, tc.to, !tc.want, tc.want)
			}
		}
	})
	t.Run("flops", func(t *testing.T) {
		f := opByName(t, g, "fc2/matmul").FLOPs
		b := opByName(t, g, "fc2/matmul/grad").FLOPs + opByName(t, g, "fc2/matmul/grad_weight").FLOPs
		if !scalar.EqualWithinAbsOrRel(b, 2*f, tol, tol) {
			t.Errorf("matmul gradient FLOPs %g, want 2 x %g", b, f)
		}
		// the first matmul computes dW only (its input needs no gradient);
		// the others' gradients cost 1x (elementwise, xent, mean) or 2x
		want := 0.0
		for name, k := range map[string]float64{"fc1/matmul": 1, "fc1/bias": 1, "fc1/relu": 1, "fc2/matmul": 2, "loss/xent": 1, "loss/mean": 1} {
			want += k * opByName(t, g, name).FLOPs
		}
		var bw float64
		for i := range g.Ops {
			if g.Ops[i].Role == workloads.Backward {
				bw += g.Ops[i].FLOPs
			}
		}
		if !scalar.EqualWithinAbsOrRel(bw, want, tol, tol) {
			t.Errorf("backward FLOPs %g, want %g", bw, want)
		}
	})
	t.Run("roles and colocation", func(t *testing.T) {
		for _, name := range []string{"fc1/matmul/grad_weight", "fc1/matmul/update"} {
			if c := opByName(t, g, name).Colocation; c != "fc1/matmul" {
				t.Errorf("%s colocation %q, want fc1/matmul", name, c)
			}
		}
		if r := opByName(t, g, "fc1/matmul/update").Role; r != workloads.Update {
			t.Errorf("update role %v", r)
		}
		if r := opByName(t, g, "fc1/relu/grad").Role; r != workloads.Backward {
			t.Errorf("gradient role %v", r)
		}
	})
	t.Run("memory sizes", func(t *testing.T) {
		p := opByName(t, g, "fc2/matmul").ParamBytes
		u := opByName(t, g, "fc2/matmul/update")
		if u.ParamBytes != 3*p { // gradient buffer + Adam's two moments
			t.Errorf("persistent Adam update holds %d bytes, want 3 x %d", u.ParamBytes, p)
		}
		if o := opByName(t, g, "fc2/matmul/grad_weight").OutputBytes; o != 0 {
			t.Errorf("persistent weight gradient outputs %d bytes, want 0 (written in place)", o)
		}
		if o := opByName(t, g, "fc2/matmul/grad").OutputBytes; o != opByName(t, g, "fc1/relu").OutputBytes {
			t.Errorf("dX is %d bytes, want the input's %d", o, opByName(t, g, "fc1/relu").OutputBytes)
		}
		tr, err := workloads.DeriveTrainingWith(fwd, workloads.TrainingOptions{Gradients: workloads.TransientGradients})
		if err != nil {
			t.Fatal(err)
		}
		if o := opByName(t, tr, "fc2/matmul/grad_weight").OutputBytes; o != p {
			t.Errorf("transient weight gradient outputs %d bytes, want paramBytes %d", o, p)
		}
		if o := opByName(t, tr, "fc1/bias/grad").OutputBytes; o != opByName(t, tr, "fc1/matmul").OutputBytes+opByName(t, tr, "fc1/bias").ParamBytes {
			t.Errorf("transient bias gradient outputs %d bytes, want dX + dBias", o)
		}
		if b := opByName(t, tr, "fc2/matmul/update").ParamBytes; b != 0 {
			t.Errorf("transient SGD update holds %d bytes, want 0", b)
		}
	})
}

// TestDeriveTrainingSharing checks a gradient sum (an activation read twice)
// and a variable (weights shared by two matmuls).
func TestDeriveTrainingSharing(t *testing.T) {
	g := workloads.NewGraph("shared", 4)
	x := g.AddOp(workloads.Op{Name: "x", Type: "input", OutputBytes: 64})
	w := g.AddOp(workloads.Op{Name: "w", Type: "variable", ParamBytes: 256})
	a := g.AddOp(workloads.Op{Name: "a", Type: "matmul", FLOPs: 100, OutputBytes: 64})
	b := g.AddOp(workloads.Op{Name: "b", Type: "matmul", FLOPs: 100, OutputBytes: 64})
	s := g.AddOp(workloads.Op{Name: "s", Type: "add", FLOPs: 16, OutputBytes: 64})
	g.AddEdge(x, a, 64)
	g.AddEdge(w, a, 256)
	g.AddEdge(a, b, 64) // a is read by b and by s
	g.AddEdge(w, b, 256)
	g.AddEdge(a, s, 64)
	g.AddEdge(b, s, 64)
	tr, err := workloads.DeriveTraining(g)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	sum := opByName(t, tr, "a/grad_sum")
	if sum.Type != "add-n" || len(tr.In(sum.ID)) != 2 {
		t.Errorf("a's gradient sum: type %q with %d inputs, want add-n with 2", sum.Type, len(tr.In(sum.ID)))
	}
	acc := opByName(t, tr, "w/grad")
	if acc.Type != "accumulate-gradients" || len(tr.In(acc.ID)) != 2 {
		t.Errorf("w's gradient: type %q with %d inputs, want accumulate-gradients with 2", acc.Type, len(tr.In(acc.ID)))
	}
	for _, name := range []string{"a/grad", "b/grad_1"} { // the weight contributions, in place
		if o := opByName(t, tr, name).OutputBytes; o != 0 {
			t.Errorf("%s outputs %d bytes, want 0 (accumulated in place)", name, o)
		}
	}
	if !hasEdge(tr, "w/grad", "w/update") || opByName(t, tr, "w/update").Colocation != "w" {
		t.Error("w's update does not read its accumulated gradient in w's group")
	}
}

func TestDeriveTrainingErrors(t *testing.T) {
	trained, err := workloads.DeriveTraining(tinyNet())
	if err != nil {
		t.Fatal(err)
	}
	cyclic := workloads.Chain(3, []float64{1}, 4)
	cyclic.AddEdge(2, 0, 4)
	tests := []struct {
		name string
		g    *workloads.Graph
		o    workloads.TrainingOptions
		want string
	}{
		{"already training", trained, workloads.TrainingOptions{}, "already a training graph"},
		{"cycle", cyclic, workloads.TrainingOptions{}, "cycle"},
		{"optimizer", tinyNet(), workloads.TrainingOptions{Optimizer: "lion"}, `optimizer "lion" (valid: sgd, momentum, adam)`},
		{"gradients", tinyNet(), workloads.TrainingOptions{Gradients: "lazy"}, `gradient memory "lazy" (valid: persistent, transient)`},
		{"tensor sum", tinyNet(), workloads.TrainingOptions{ParamTensors: map[int][]int64{2: {4, 4}}}, `op "fc1/matmul": parameter tensors add up to 8 bytes, its trainable bytes are 2048`},
		{"tensor op", tinyNet(), workloads.TrainingOptions{ParamTensors: map[int][]int64{99: {4}}}, "parameter tensors given for op 99"},
		{"state", tinyNet(), workloads.TrainingOptions{State: map[int]int64{3: 1 << 20}}, `op "fc1/bias": state of 1048576 bytes (valid range: 0..paramBytes = 128)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := workloads.DeriveTrainingWith(tc.g, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := workloads.DeriveTraining(cyclic); !errors.Is(err, workloads.ErrCycle) {
		t.Errorf("cycle error %v does not wrap ErrCycle", err)
	}
}
