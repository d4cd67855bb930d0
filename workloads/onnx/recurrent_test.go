package onnx_test

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/workloads"
	"placesim/workloads/onnx"
	"placesim/workloads/zoo"
)

// recCase is one recurrent node to build: kind LSTM, GRU or RNN.
type recCase struct {
	kind                 string
	dir                  string // forward, reverse, bidirectional
	layout               int
	seq, batch, in, hid  int
	noBias, initial, acc bool // acc: peepholes (LSTM)
}

func (rc recCase) gates() int { return map[string]int{"LSTM": 4, "GRU": 3, "RNN": 1}[rc.kind] }

func (rc recCase) dirs() int {
	if rc.dir == "bidirectional" {
		return 2
	}
	return 1
}

// model builds X -> KIND -> Y -> Relu, with Y_h (and Y_c) as graph
// outputs; extra attributes are added to the recurrent node.
func (rc recCase) model(attrs ...[]byte) *model {
	d, g, h := int64(rc.dirs()), int64(rc.gates()), int64(rc.hid)
	m := newModel("rec")
	if rc.layout == 0 {
		m.input("x", tFloat, rc.seq, rc.batch, rc.in)
	} else {
		m.input("x", tFloat, rc.batch, rc.seq, rc.in)
	}
	m.weight("W", d, g*h, int64(rc.in)).weight("R", d, g*h, h)
	ins := []string{"x", "W", "R", "", "", ""}
	if !rc.noBias {
		m.weight("B", d, 2*g*h)
		ins[3] = "B"
	}
	if rc.initial {
		if rc.layout == 0 {
			m.input("h0", tFloat, int(d), rc.batch, rc.hid)
		} else {
			m.input("h0", tFloat, rc.batch, int(d), rc.hid)
		}
		ins[5] = "h0"
	}
	outs := []string{"y", "y_h"}
	if rc.kind == "LSTM" {
		outs = append(outs, "y_c")
		if rc.acc {
			m.weight("P", d, 3*h)
			ins = append(ins, "", "P")
		}
	}
	for len(ins) > 3 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	attrs = append(attrs, aString("direction", rc.dir), aInt("hidden_size", h), aInt("layout", int64(rc.layout)))
	m.node(rc.kind, "/rnn/"+rc.kind, ins, outs, attrs...)
	m.node("Relu", "/relu", in("y"), in("z"))
	return m
}

// rowFLOPs is the specification's work per batch row, step and direction
// with the default activations (Sigmoid and Tanh at 4 FLOPs an element).
func (rc recCase) rowFLOPs() float64 {
	g, h, i := float64(rc.gates()), float64(rc.hid), float64(rc.in)
	f := 2 * g * h * (i + h)
	if !rc.noBias {
		f += 2 * g * h
	}
	switch rc.kind {
	case "LSTM":
		f += h * (3*4 + 4 + 4 + 4)
		if rc.acc {
			f += 6 * h
		}
	case "GRU":
		f += h * (2*4 + 4 + 5)
	default:
		f += 4 * h
	}
	return f
}

// pytorchParams is the parameter count of the PyTorch module of the same
// shape (nn.LSTM, nn.GRU, nn.RNN: weight_ih, weight_hh, bias_ih, bias_hh
// per direction; ONNX's B holds both biases).
func (rc recCase) pytorchParams() int64 {
	g, h, i := int64(rc.gates()), int64(rc.hid), int64(rc.in)
	n := g*h*(i+h) + 2*g*h
	if rc.noBias {
		n = g * h * (i + h)
	}
	if rc.acc {
		n += 3 * h
	}
	return int64(rc.dirs()) * n
}

func TestRecurrentOps(t *testing.T) {
	var cases []recCase
	for _, kind := range []string{"LSTM", "GRU", "RNN"} {
		for _, dir := range []string{"forward", "reverse", "bidirectional"} {
			for layout := range 2 {
				cases = append(cases, recCase{kind: kind, dir: dir, layout: layout, seq: 5, batch: 3, in: 6, hid: 8})
			}
		}
		cases = append(cases, recCase{kind: kind, dir: "bidirectional", seq: 4, batch: 2, in: 3, hid: 5, noBias: true, initial: true})
	}
	cases = append(cases, recCase{kind: "LSTM", dir: "forward", seq: 3, batch: 2, in: 4, hid: 8, acc: true, initial: true})
	for _, rc := range cases {
		name := fmt.Sprintf("%s/%s/layout%d/bias%v/init%v/peep%v", rc.kind, rc.dir, rc.layout, !rc.noBias, rc.initial, rc.acc)
		t.Run(name, func(t *testing.T) {
			data := rc.model().bytes()
			unrolled := parse(t, data, onnx.Options{})
			fused := parse(t, data, onnx.Options{RNN: onnx.RNNFused})
			// the steps, and the Relu's one FLOP per element of Y
			want := float64(rc.dirs()*rc.seq*rc.batch)*rc.rowFLOPs() + float64(rc.dirs()*rc.seq*rc.batch*rc.hid)
			for _, g := range []*workloads.Graph{unrolled, fused} {
				if got := g.ParamBytes(); got != 4*rc.pytorchParams() {
					t.Errorf("%d parameter bytes, want %d (PyTorch's %d fp32 parameters)", got, 4*rc.pytorchParams(), rc.pytorchParams())
				}
				if got := g.TotalFLOPs(); !scalar.EqualWithinAbsOrRel(got, want, 0, flopTol) {
					t.Errorf("FLOPs %g, want %g", got, want)
				}
			}
			typ := strings.ToLower(rc.kind)
			var steps, concats int
			for _, op := range unrolled.Ops {
				switch op.Type {
				case typ + "-cell":
					steps++
					if op.Layer != "rnn/"+rc.kind {
						t.Errorf("step %q in layer %q, want rnn/%s", op.Name, op.Layer, rc.kind)
					}
					if op.TempBytes != int64(4*rc.gates()*rc.batch*rc.hid) {
						t.Errorf("step %q workspace %d, want the gates' %d bytes", op.Name, op.TempBytes, 4*rc.gates()*rc.batch*rc.hid)
					}
				case "concat":
					concats++
				}
			}
			if steps != rc.dirs()*rc.seq || concats != 1 {
				t.Errorf("unrolled: %d step ops and %d concat ops, want %d and 1 (Y read whole by the Relu)", steps, concats, rc.dirs()*rc.seq)
			}
			op := opByName(t, fused, "/rnn/"+rc.kind)
			yBytes := int64(4 * rc.seq * rc.dirs() * rc.batch * rc.hid)
			states := int64(1 + btoi(rc.kind == "LSTM"))
			if op.Type != typ || op.OutputBytes != yBytes+states*int64(4*rc.dirs()*rc.batch*rc.hid) {
				t.Errorf("fused op type %q, output %d bytes; want %q, %d", op.Type, op.OutputBytes, typ, yBytes+states*int64(4*rc.dirs()*rc.batch*rc.hid))
			}
			if b := edgeBytes(fused, "/rnn/"+rc.kind, "/relu"); b != yBytes {
				t.Errorf("edge to the Relu carries %d bytes, want Y's %d", b, yBytes)
			}
			if b := edgeBytes(unrolled, "/rnn/"+rc.kind+"/Y", "/relu"); b != yBytes {
				t.Errorf("unrolled: edge concat -> Relu carries %d bytes, want Y's %d", b, yBytes)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestRecurrentStepOrder checks the chain of steps: forward runs t = 0, 1,
// ...; reverse t = seq-1, ..., 0; each step reads its time slice of X and
// the previous step's state, and Y_h of a single direction is the last
// step's output.
func TestRecurrentStepOrder(t *testing.T) {
	rc := recCase{kind: "GRU", dir: "bidirectional", seq: 3, batch: 2, in: 4, hid: 6}
	g := parse(t, rc.model().bytes(), onnx.Options{})
	xSlice := int64(4 * rc.batch * rc.in)
	state := int64(4 * rc.batch * rc.hid)
	for _, tc := range []struct{ from, to string }{
		{"/rnn/GRU/forward/t_0", "/rnn/GRU/forward/t_1"},
		{"/rnn/GRU/forward/t_1", "/rnn/GRU/forward/t_2"},
		{"/rnn/GRU/reverse/t_2", "/rnn/GRU/reverse/t_1"},
		{"/rnn/GRU/reverse/t_1", "/rnn/GRU/reverse/t_0"},
	} {
		if b := edgeBytes(g, tc.from, tc.to); b != state {
			t.Errorf("edge %s -> %s carries %d bytes, want the state's %d", tc.from, tc.to, b, state)
		}
	}
	for _, s := range []string{"/rnn/GRU/forward/t_0", "/rnn/GRU/reverse/t_2"} {
		if b := edgeBytes(g, "x", s); b != xSlice {
			t.Errorf("edge x -> %s carries %d bytes, want one time slice, %d", s, b, xSlice)
		}
	}
	if b := edgeBytes(g, "/rnn/GRU/forward/t_2", "/rnn/GRU/forward/t_1"); b != -1 {
		t.Error("a forward step reads a later one")
	}
	// each direction's weights are one variable read by its three steps
	for _, w := range []string{"W[forward]", "W[reverse]", "R[forward]", "B[reverse]"} {
		op := opByName(t, g, w)
		if op.Type != "variable" || len(g.Out(op.ID)) != rc.seq {
			t.Errorf("%s: type %q with %d readers, want a variable read by %d steps", w, op.Type, len(g.Out(op.ID)), rc.seq)
		}
	}
}

// TestSequenceLens checks that known sequence lengths scale the work: a
// row of length L runs L steps.
func TestSequenceLens(t *testing.T) {
	rc := recCase{kind: "LSTM", dir: "forward", seq: 4, batch: 3, in: 2, hid: 4}
	data := newModel("rec").input("x", tFloat, 4, 3, 2).weight("W", 1, 16, 2).weight("R", 1, 16, 4).weight("B", 1, 32).
		ints("lens", []int64{4, 1, 2}).
		node("LSTM", "lstm", in("x", "W", "R", "B", "lens"), in("y"), aInt("hidden_size", 4)).bytes()
	for _, mode := range []string{onnx.RNNUnroll, onnx.RNNFused} {
		g := parse(t, data, onnx.Options{RNN: mode})
		if got, want := g.TotalFLOPs(), float64(4+1+2)*rc.rowFLOPs(); !scalar.EqualWithinAbsOrRel(got, want, 0, flopTol) {
			t.Errorf("%s: FLOPs %g, want 7 row-steps, %g", mode, got, want)
		}
		if mode == onnx.RNNUnroll {
			for step, rows := range []float64{3, 2, 1, 1} {
				op := opByName(t, g, fmt.Sprintf("lstm/t_%d", step))
				if !scalar.EqualWithinAbsOrRel(op.FLOPs, rows*rc.rowFLOPs(), 0, flopTol) {
					t.Errorf("step %d: FLOPs %g, want %g rows", step, op.FLOPs, rows)
				}
			}
		}
	}
}

// lmModel is what torch.onnx.export writes for a stacked-LSTM language
// model (Embedding, nn.LSTM with num_layers layers, Linear, softmax):
// Gather, one LSTM node per layer (Squeeze of the direction axis, or
// Transpose and Reshape when bidirectional), MatMul and Add, Softmax.
func lmModel(layers, hid, seq, vocab, batch int, bidirectional bool) []byte {
	h := int64(hid)
	dirs := int64(1)
	dir := "forward"
	if bidirectional {
		dirs, dir = 2, "bidirectional"
	}
	m := newModel("lm").input("ids", tInt64, seq, batch).weight("encoder.weight", int64(vocab), h)
	m.node("Gather", "/encoder/Gather", in("encoder.weight", "ids"), in("emb"))
	x := "emb"
	inSize := h
	m.ints("axes1", []int64{1})
	m.ints("shape", []int64{int64(seq), int64(batch), dirs * h})
	for l := range layers {
		p := fmt.Sprintf("/rnn/LSTM_%d", l)
		w, r, b := fmt.Sprintf("W%d", l), fmt.Sprintf("R%d", l), fmt.Sprintf("B%d", l)
		m.weight(w, dirs, 4*h, inSize).weight(r, dirs, 4*h, h).weight(b, dirs, 8*h)
		y := fmt.Sprintf("y%d", l)
		m.node("LSTM", p, in(x, w, r, b), in(y, y+"_h", y+"_c"), aInt("hidden_size", h), aString("direction", dir))
		if bidirectional {
			m.node("Transpose", p+"_t", in(y), in(y+"_t"), aInts("perm", 0, 2, 1, 3))
			m.node("Reshape", p+"_r", in(y+"_t", "shape"), in(y+"_r"))
			x = y + "_r"
		} else {
			m.node("Squeeze", p+"_sq", in(y, "axes1"), in(y+"_sq"))
			x = y + "_sq"
		}
		inSize = dirs * h
	}
	m.weight("decoder.weight", dirs*h, int64(vocab)).weight("decoder.bias", int64(vocab))
	m.node("MatMul", "/decoder/MatMul", in(x, "decoder.weight"), in("logits0"))
	m.node("Add", "/decoder/Add", in("logits0", "decoder.bias"), in("logits"))
	m.node("Softmax", "/Softmax", in("logits"), in("probs"), aInt("axis", -1))
	return m.bytes()
}

// TestLSTMLanguageModelMatchesZoo imports the ONNX export of a 2-layer
// LSTM language model and compares it with zoo:rnnlm of the same shape.
// Parameters: the zoo's LSTM is TensorFlow's BasicLSTMCell with one bias
// vector of 4*hidden per layer, PyTorch's and ONNX's have two (B = Wb, Rb),
// so the ONNX model has exactly 4*hidden more parameters per layer; all
// else (embedding, LSTM kernels, decoder) is equal. FLOPs agree within 2 %.
func TestLSTMLanguageModelMatchesZoo(t *testing.T) {
	const layers, hid, seq, vocab, batch = 2, 64, 6, 500, 4
	z, err := zoo.Build(fmt.Sprintf("zoo:rnnlm?layers=%d&hidden=%d&seq=%d&vocab=%d&batch=%d", layers, hid, seq, vocab, batch))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{onnx.RNNUnroll, onnx.RNNFused} {
		t.Run(mode, func(t *testing.T) {
			g := parse(t, lmModel(layers, hid, seq, vocab, batch, false), onnx.Options{RNN: mode})
			extraBias := int64(4 * layers * 4 * hid)
			if got, want := g.ParamBytes(), z.ParamBytes()+extraBias; got != want {
				t.Errorf("parameter bytes %d, want the zoo's %d + the second bias vectors %d = %d", got, z.ParamBytes(), extraBias, want)
			}
			pytorch := int64(vocab*hid + layers*(4*hid*(hid+hid)+8*hid) + hid*vocab + vocab)
			if got := g.ParamBytes() / 4; got != pytorch {
				t.Errorf("%d parameters, PyTorch's module has %d", got, pytorch)
			}
			t.Logf("%s: %d ops, FLOPs %g, zoo %g (%+.3f %%); parameters %d, zoo %d", mode, len(g.Ops), g.TotalFLOPs(), z.TotalFLOPs(), 100*(g.TotalFLOPs()/z.TotalFLOPs()-1), g.ParamBytes()/4, z.ParamBytes()/4)
			if got, want := g.TotalFLOPs(), z.TotalFLOPs(); !scalar.EqualWithinRel(got, want, 0.02) {
				t.Errorf("FLOPs %g, zoo %g (%.2f %% apart, want within 2 %%)", got, want, 100*(got/want-1))
			}
			if mode == onnx.RNNFused {
				return
			}
			// stacked layers read each other's steps: the wavefront the zoo has
			state := int64(4 * batch * hid)
			if b := edgeBytes(g, "/rnn/LSTM_0/t_3", "/rnn/LSTM_1/t_3"); b != state {
				t.Errorf("edge layer 0 step 3 -> layer 1 step 3 carries %d bytes, want %d", b, state)
			}
			for _, op := range g.Ops {
				if op.Type == "concat" && strings.HasPrefix(op.Name, "/rnn/LSTM_0") {
					t.Errorf("layer 0's Y was concatenated (%q) though layer 1 reads its steps", op.Name)
				}
			}
		})
	}
	t.Run("training", func(t *testing.T) {
		g := parse(t, lmModel(layers, hid, seq, vocab, batch, false), onnx.Options{Training: true})
		if !g.Training || g.TotalFLOPs() < 2.5*z.TotalFLOPs() {
			t.Errorf("training graph: training %v, FLOPs %g (forward %g)", g.Training, g.TotalFLOPs(), z.TotalFLOPs())
		}
	})
}

// TestBidirectionalLSTMMatchesPyTorch: nn.LSTM(16, 16, num_layers=2,
// bidirectional=True) between an embedding and a decoder; the second
// layer's steps read both directions' steps of the first.
func TestBidirectionalLSTMMatchesPyTorch(t *testing.T) {
	const layers, hid, seq, vocab, batch = 2, 16, 5, 40, 3
	g := parse(t, lmModel(layers, hid, seq, vocab, batch, true), onnx.Options{})
	lstm := 2 * (4*hid*(hid+hid) + 8*hid)                 // layer 0, two directions
	lstm += 2 * (4*hid*(2*hid+hid) + 8*hid)               // layer 1 reads 2*hid
	want := int64(vocab*hid + lstm + 2*hid*vocab + vocab) // embedding, LSTM, decoder
	if got := g.ParamBytes() / 4; got != want {
		t.Errorf("%d parameters, PyTorch's modules have %d", got, want)
	}
	state := int64(4 * batch * hid)
	for _, from := range []string{"/rnn/LSTM_0/forward/t_2", "/rnn/LSTM_0/reverse/t_2"} {
		if b := edgeBytes(g, from, "/rnn/LSTM_1/reverse/t_2"); b != state {
			t.Errorf("edge %s -> layer 1 reverse step 2 carries %d bytes, want %d", from, b, state)
		}
	}
}

func TestRecurrentErrors(t *testing.T) {
	base := recCase{kind: "LSTM", dir: "forward", seq: 3, batch: 2, in: 4, hid: 8}
	tests := []struct {
		name  string
		data  []byte
		opts  onnx.Options
		wants []string
	}{
		{"bad direction", base.model(aString("direction", "sideways")).bytes(), onnx.Options{}, []string{`direction = "sideways" (valid: forward, reverse, bidirectional)`}},
		{"hidden size mismatch", newModel("r").input("x", tFloat, 3, 2, 4).weight("W", 1, 32, 4).weight("R", 1, 32, 8).
			node("LSTM", "l", in("x", "W", "R"), in("y"), aInt("hidden_size", 7)).bytes(), onnx.Options{}, []string{"hidden_size = 7, but R of shape [1 32 8] has hidden size 8"}},
		{"W of the wrong input size", newModel("r").input("x", tFloat, 3, 2, 4).weight("W", 1, 32, 5).weight("R", 1, 32, 8).
			node("LSTM", "l", in("x", "W", "R"), in("y")).bytes(), onnx.Options{}, []string{"W of shape [1 32 5]: want [1, 32, 4]"}},
		{"R of the wrong gates", newModel("r").input("x", tFloat, 3, 2, 4).weight("W", 1, 24, 4).weight("R", 1, 24, 8).
			node("LSTM", "l", in("x", "W", "R"), in("y")).bytes(), onnx.Options{}, []string{"R of shape [1 24 8]: want [1, 4*hidden, hidden]"}},
		{"bad layout", base.model(aInt("layout", 2)).bytes(), onnx.Options{}, []string{"layout = 2 (valid: 0"}},
		{"unknown activation", base.model(aStrings("activations", "Sigmoid", "Tanh", "Cube")).bytes(), onnx.Options{}, []string{`activations[2] = "Cube" (valid: Affine, Elu,`}},
		{"activation count", base.model(aStrings("activations", "Sigmoid")).bytes(), onnx.Options{}, []string{"activations has 1 names, want 3"}},
		{"sequence_lens too long", newModel("r").input("x", tFloat, 3, 2, 4).weight("W", 1, 32, 4).weight("R", 1, 32, 8).ints("lens", []int64{3, 4}).
			node("LSTM", "l", in("x", "W", "R", "", "lens"), in("y")).bytes(), onnx.Options{}, []string{"sequence_lens)[1] = 4 (valid range: [0, 3]"}},
		{"X of rank 2", newModel("r").input("x", tFloat, 3, 4).weight("W", 1, 32, 4).weight("R", 1, 32, 8).
			node("LSTM", "l", in("x", "W", "R"), in("y")).bytes(), onnx.Options{}, []string{"X of shape [3 4]: want rank 3"}},
		{"too long to unroll", newModel("r").input("x", tFloat, 40000, 1, 1).weight("W", 1, 3, 1).weight("R", 1, 3, 1).
			node("GRU", "g", in("x", "W", "R"), in("y")).bytes(), onnx.Options{}, []string{"unrolling 40000 time steps", "rnn=fused"}},
		{"rnn mode", base.model().bytes(), onnx.Options{RNN: "loop"}, []string{`rnn = "loop" (valid: unroll, fused)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := onnx.Parse(tc.data, "r.onnx", tc.opts)
			for _, w := range tc.wants {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("error %v lacks %q", err, w)
				}
			}
		})
	}
	// the long sequence imports fused
	g := parse(t, tests[9].data, onnx.Options{RNN: onnx.RNNFused})
	if len(g.Ops) != 2 {
		t.Errorf("fused: %d ops, want input and GRU", len(g.Ops))
	}
}
