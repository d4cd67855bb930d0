package zoo_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/workloads"
	"placesim/workloads/zoo"
)

// trainable is the number of trainable parameters of a graph's forward
// ops (batch-norm moving statistics are state, not parameters).
func trainable(g *workloads.Graph) float64 {
	var b int64
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.Role == workloads.Forward && !workloads.GradRuleFor(op.Type).NoGradient {
			b += op.ParamBytes
		}
	}
	return float64(b) / 4
}

func build(t testing.TB, spec string) *workloads.Graph {
	t.Helper()
	g, err := zoo.Build(spec)
	if err != nil {
		t.Fatalf("build %s: %v", spec, err)
	}
	return g
}

// TestParamCounts compares trainable parameters with the published counts.
func TestParamCounts(t *testing.T) {
	const within = 0.02
	tests := []struct {
		spec      string
		published float64
	}{
		{"resnet50?batch=1&training=true", 25.6e6},            // He et al. 2016
		{"vgg19?batch=1&training=true", 143.7e6},              // Simonyan and Zisserman 2015
		{"inception_v3?batch=1&training=true", 23.8e6},        // Szegedy et al. 2016 (no auxiliary head)
		{"bert?size=base&batch=1&seq=8&training=true", 110e6}, // Devlin et al. 2019
		{"bert?size=large&batch=1&seq=8&training=true&attention=fused", 340e6},
		{"gpt?size=xl&batch=1&seq=8&training=true&attention=fused", 1.56e9}, // Radford et al. 2019
		{"nasnet?batch=1&training=true&aux=false", 88.9e6},                  // Zoph et al. 2018, NASNet-A 6@4032
		{"nasnet?cells=4&filters=44&image=224&batch=1&training=true&aux=false", 5.3e6},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			got := trainable(build(t, tc.spec))
			if !scalar.EqualWithinRel(got, tc.published, within) {
				t.Fatalf("%.0f parameters, published %.4g (off by %.2f %%, tolerance %.0f %%)", got, tc.published, 100*(got/tc.published-1), 100*within)
			}
			t.Logf("%.0f parameters (published %.4g, %+.2f %%)", got, tc.published, 100*(got/tc.published-1))
		})
	}
}

// TestResNet50MultiplyAdds checks the convolutions and classifier of
// ResNet-50 at 224x224: about 4.1 G multiply-adds per image.
func TestResNet50MultiplyAdds(t *testing.T) {
	const published, within = 4.1e9, 0.05
	g := build(t, "resnet50?batch=1")
	var macs float64
	for i := range g.Ops {
		if typ := g.Ops[i].Type; typ == "conv2d" || typ == "matmul" {
			macs += g.Ops[i].FLOPs / 2 // 1 MAC = 2 FLOPs
		}
	}
	if !scalar.EqualWithinRel(macs, published, within) {
		t.Fatalf("%.3g multiply-adds, want %.3g within %.0f %%", macs, published, 100*within)
	}
	t.Logf("ResNet-50: %.4g multiply-adds per 224x224 image", macs)
}

// celeritas are the models of Celeritas' Table 2 in its section 6.2
// configurations, with the table's node counts.
var celeritas = []struct {
	name, spec string
	nodes      float64
}{
	{"Inception_V3", "inception_v3?batch=512&training=true&framework=tf1-graph", 6332},
	{"NMT", "gnmt?layers=4&hidden=2048&batch=512&training=true&framework=tf1-graph", 25463},
	{"Transformer", celeritasTransformer, 36352},
	{"Tensor Holography", "tensor_holography?batch=32&training=true&framework=tf1-graph", 3810},
}

// The seeds' papers placed TensorFlow 1.x graphs op by op: tf1-graph.
const celeritasTransformer = "transformer?layers=12&heads=16&hidden=2048&batch=256&training=true&framework=tf1-graph"

// TestCeleritasNodeCounts: operator-granularity training graphs within
// 0.5x-2x of the node counts of Celeritas' Table 2.
func TestCeleritasNodeCounts(t *testing.T) {
	for _, m := range celeritas {
		t.Run(m.name, func(t *testing.T) {
			g := build(t, m.spec)
			r := float64(len(g.Ops)) / m.nodes
			t.Logf("%s: %d ops (Table 2: %.0f, ratio %.2f), %d edges", m.name, len(g.Ops), m.nodes, r, len(g.Edges))
			if r < 0.5 || r > 2 {
				t.Fatalf("%d ops is %.2fx Table 2's %.0f, want 0.5x-2x", len(g.Ops), r, m.nodes)
			}
		})
	}
}

// small are cheap configurations of every model, for structural tests.
var small = map[string]string{
	"mlp":               "layers=2&hidden=32&input=16&classes=10&batch=4",
	"resnet50":          "image=64&batch=2",
	"vgg19":             "image=32&batch=2",
	"inception_v3":      "image=75&batch=2&aux=true",
	"nasnet":            "cells=1&filters=16&image=64&batch=2",
	"gnmt":              "layers=3&hidden=32&seq=3&vocab=50&batch=4",
	"rnnlm":             "hidden=32&seq=3&vocab=50&batch=4",
	"transformer":       "layers=1&hidden=32&heads=4&seq=8&vocab=50&batch=2",
	"bert":              "layers=1&seq=8&batch=1",
	"gpt":               "layers=1&hidden=32&heads=2&seq=8&batch=1",
	"tensor_holography": "layers=3&resolution=16&planes=2&batch=2",
	// the decoder-only presets (llm_graph.go) at one layer
	"llama3.1-8b":   "layers=1&seq=256&batch=1",
	"llama3.1-70b":  "layers=1&seq=256&batch=1",
	"llama3.1-405b": "layers=1&seq=256&batch=1",
	"gpt3-175b":     "layers=1&seq=256&batch=1",
	"mixtral-8x7b":  "layers=1&seq=256&batch=1",
	"gpt-oss-120b":  "layers=2&seq=256&batch=1",
}

func TestSmallCoversZoo(t *testing.T) {
	for _, name := range zoo.Names() {
		if _, ok := small[name]; !ok {
			t.Errorf("model %q has no small configuration in this test", name)
		}
	}
}

// TestBuildEveryModel builds every model at both granularities, forward and
// training: valid, deterministic, with the same parameters and forward
// FLOPs at both granularities and fewer ops per layer.
func TestBuildEveryModel(t *testing.T) {
	for _, name := range zoo.Names() {
		t.Run(name, func(t *testing.T) {
			base := name + "?" + small[name]
			for _, training := range []bool{false, true} {
				op := build(t, fmt.Sprintf("%s&training=%v", base, training))
				again := build(t, fmt.Sprintf("%s&training=%v", base, training))
				if !reflect.DeepEqual(op.Ops, again.Ops) || !reflect.DeepEqual(op.Edges, again.Edges) {
					t.Fatalf("training=%v: two builds differ", training)
				}
				layer := build(t, fmt.Sprintf("%s&training=%v&granularity=layer", base, training))
				if len(layer.Ops) >= len(op.Ops) {
					t.Errorf("training=%v: layer granularity has %d ops, op granularity %d", training, len(layer.Ops), len(op.Ops))
				}
				if op.Training != training || layer.Training != training {
					t.Errorf("Training flags %v/%v, want %v", op.Training, layer.Training, training)
				}
				if op.ParamBytes() != layer.ParamBytes() {
					t.Errorf("training=%v: resident parameter bytes %d (op) vs %d (layer)", training, op.ParamBytes(), layer.ParamBytes())
				}
				fo, fl := forwardFLOPs(op), forwardFLOPs(layer)
				if !scalar.EqualWithinAbsOrRel(fo, fl, 1e-9, 1e-9) {
					t.Errorf("training=%v: forward FLOPs %g (op) vs %g (layer)", training, fo, fl)
				}
			}
		})
	}
}

func forwardFLOPs(g *workloads.Graph) float64 {
	var s float64
	for i := range g.Ops {
		if g.Ops[i].Role == workloads.Forward {
			s += g.Ops[i].FLOPs
		}
	}
	return s
}

// TestLayerNames checks the Layer naming convention documented in doc.go.
func TestLayerNames(t *testing.T) {
	tests := []struct {
		model string
		want  []string
	}{
		{"gnmt", []string{"encoder/embedding", "encoder/lstm_0_fw", "encoder/lstm_0_bw", "encoder/lstm_1", "encoder/lstm_2",
			"decoder/embedding", "decoder/attention", "decoder/lstm_0", "decoder/lstm_2", "decoder/softmax"}},
		{"rnnlm", []string{"embedding", "lstm_0", "lstm_1", "softmax"}},
		{"transformer", []string{"encoder/embedding", "encoder/layer_0/self_attention", "encoder/layer_0/ffn",
			"decoder/layer_0/self_attention", "decoder/layer_0/encdec_attention", "decoder/layer_0/ffn", "decoder/softmax"}},
		{"bert", []string{"embedding", "encoder/layer_0/self_attention", "encoder/layer_0/ffn", "pooler", "mlm/softmax"}},
		{"gpt", []string{"embedding", "layer_0/self_attention", "layer_0/ffn", "final_norm", "softmax"}},
		{"nasnet", []string{"cell_stem_0/branch_0/left", "cell_0/branch_4/left", "cell_0/output", "reduction_cell_1/branch_2/combine"}},
		{"inception_v3", []string{"mixed_5b/branch_1/conv_2", "mixed_7c/branch_2/concat", "aux/fc", "classifier/fc"}},
		{"resnet50", []string{"stem/conv_1", "stage_2/block_1/shortcut", "stage_5/block_3/conv_c"}},
		{"tensor_holography", []string{"conv_1", "conv_3", "loss/focal_stack/green"}},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			g := build(t, tc.model+"?"+small[tc.model]+"&training=true")
			layers := map[string]bool{}
			for i := range g.Ops {
				layers[g.Ops[i].Layer] = true
			}
			for _, l := range tc.want {
				if !layers[l] {
					t.Errorf("no op has Layer %q", l)
				}
			}
		})
	}
}

// TestUnrolledSteps: recurrent layers have seq time steps at op
// granularity, each step a block at layer granularity, with shared weights.
func TestUnrolledSteps(t *testing.T) {
	for _, seq := range []int{1, 5} {
		g := build(t, fmt.Sprintf("rnnlm?layers=2&hidden=16&vocab=20&batch=2&seq=%d&granularity=layer", seq))
		steps := 0
		for i := range g.Ops {
			if g.Ops[i].Layer == "lstm_1" && g.Ops[i].Type == "lstm-cell" {
				steps++
			}
		}
		if steps != seq {
			t.Errorf("seq=%d: %d lstm_1 cells", seq, steps)
		}
	}
	g := build(t, "gnmt?layers=2&hidden=16&vocab=20&batch=2&seq=4")
	kernel := -1
	for i := range g.Ops {
		if g.Ops[i].Name == "decoder/lstm_1/kernel/kernel" {
			kernel = i
		}
	}
	if kernel < 0 || len(g.Out(kernel)) != 4 {
		t.Fatalf("decoder/lstm_1 kernel (op %d) is not read by its 4 steps", kernel)
	}
}

func TestSpecErrors(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"resnet", `unknown zoo model "resnet"`},
		{"resnet50?depth=51", "parameter depth=51 (valid: 50, 101, 152)"},
		{"resnet50?image=8", "parameter image=\"8\" (valid range: integer in [32, 2048])"},
		{"gnmt?hidden=x", `parameter hidden="x" (valid range: integer in [8, 16384])`},
		{"bert?size=huge", `parameter size="huge" (valid: base, large)`},
		{"gpt?heads=7", "parameter hidden=768 is not a multiple of heads=7"},
		{"transformer?attention=flash", `parameter attention="flash" (valid: heads, fused)`},
		{"vgg19?colour=red", `unknown parameter "colour"`},
		{"mlp?optimizer=adam", "parameters optimizer and grads need training=true"},
		{"mlp?training=true&optimizer=lion", `parameter optimizer="lion" (valid: sgd, momentum, adam)`},
		{"mlp?training=true&grads=lazy", `parameter grads="lazy" (valid: persistent, transient)`},
		{"inception_v3?aux=maybe", `parameter aux="maybe" (valid: true, false)`},
		{"inception_v3?image=80&granularity=op", ""},
		{"nasnet?bn=half", `parameter bn="half" (valid: unfused, fused)`},
		{"tensor_holography?planes=-1", "parameter planes=\"-1\" (valid range: integer in [0, 256])"},
		{"mlp?batch=0", "parameter batch=\"0\" (valid range: integer in [1, 1048576])"},
		{"mlp?granularity=cell", `parameter granularity="cell" (valid: layer, op)`},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := zoo.Build(tc.spec)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestOptimizerState: the update ops hold the gradient buffers and the
// optimizer's slots, so a training graph's resident bytes are parameters
// x (2 + slots).
func TestOptimizerState(t *testing.T) {
	base := "mlp?layers=2&hidden=32&input=16&classes=10&batch=4&training=true"
	p := build(t, strings.TrimSuffix(base, "&training=true")).ParamBytes()
	for _, tc := range []struct {
		opts  string
		times int64
	}{{"&optimizer=sgd", 2}, {"&optimizer=momentum", 3}, {"&optimizer=adam", 4}, {"&optimizer=adam&grads=transient", 3}} {
		t.Run(tc.opts, func(t *testing.T) {
			if got := build(t, base+tc.opts).ParamBytes(); got != tc.times*p {
				t.Fatalf("resident %d bytes, want %d x %d", got, tc.times, p)
			}
		})
	}
}

// TestBatchScaling: FLOPs grow with the batch, parameters do not.
func TestBatchScaling(t *testing.T) {
	for _, spec := range []string{
		"resnet50?image=64&training=true",
		"gnmt?layers=2&hidden=32&seq=3&vocab=50",
		"transformer?layers=1&hidden=32&heads=4&seq=8&vocab=50",
	} {
		t.Run(spec, func(t *testing.T) {
			g1, g2 := build(t, spec+"&batch=2"), build(t, spec+"&batch=4")
			if g1.ParamBytes() != g2.ParamBytes() {
				t.Errorf("parameters %d at batch 2, %d at batch 4", g1.ParamBytes(), g2.ParamBytes())
			}
			r := g2.TotalFLOPs() / g1.TotalFLOPs()
			if math.Abs(r-2) > 0.05 {
				t.Errorf("FLOPs ratio %.3f from batch 2 to 4, want about 2", r)
			}
		})
	}
}
