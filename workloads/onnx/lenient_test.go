package onnx_test

import (
	"errors"
	"strings"
	"testing"

	"placesim/workloads/onnx"
)

// lenientModel: x -> MatMul -> NonMaxSuppression -> Relu -> TopK -> Relu,
// with value_info for the first unsupported node's output only when known.
func lenientModel(withValueInfo bool) []byte {
	m := newModel("l").input("x", tFloat, 2, 4).weight("w", 4, 3)
	m.node("MatMul", "mm", in("x", "w"), in("y"))
	m.node("NonMaxSuppression", "nms", in("y"), in("z"))
	m.node("Relu", "relu", in("z"), in("r"))
	m.node("NonMaxSuppression", "nms2", in("r"), in("z2"))
	m.node("TopK", "topk", in("z2"), in("k"))
	m.node("Relu", "relu2", in("k"), in("r2"))
	if withValueInfo {
		m.valueInfo("z", tFloat, 2, 3)
	}
	return m.bytes()
}

func TestLenientImport(t *testing.T) {
	if _, err := onnx.Parse(lenientModel(true), "l.onnx", onnx.Options{}); !errors.Is(err, onnx.ErrUnsupported) ||
		!strings.Contains(err.Error(), `node "nms" (graph.node[1], NonMaxSuppression): unsupported op type "NonMaxSuppression" (supported: Abs,`) {
		t.Fatalf("strict import: %v", err)
	}
	tests := []struct {
		name          string
		valueInfo     bool
		placeholders  []string
		reluOut       int64 // the first Relu's output bytes (0: a placeholder)
		warnings      int
		warnDownsteam bool
	}{
		{"with value_info", true, []string{"nms", "nms2", "topk", "relu2"}, 24, 3, true},
		{"without value_info", false, []string{"nms", "relu", "nms2", "topk", "relu2"}, 0, 3, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := parse(t, lenientModel(tc.valueInfo), onnx.Options{Lenient: true})
			for _, name := range tc.placeholders {
				if op := opByName(t, g, name); op.Type != "unsupported" || op.FLOPs != 0 || op.BytesAccessed != 0 {
					t.Errorf("%s: type %q, FLOPs %g, bytes %d; want a zero-cost placeholder", name, op.Type, op.FLOPs, op.BytesAccessed)
				}
			}
			if op := opByName(t, g, "mm"); op.Type != "matmul" || op.FLOPs != 2*2*4*3 {
				t.Errorf("supported op before the placeholder: %+v", op)
			}
			if op := opByName(t, g, "relu"); tc.reluOut > 0 && (op.Type != "relu" || op.OutputBytes != tc.reluOut) {
				t.Errorf("relu after a placeholder with value_info: type %q, output %d bytes", op.Type, op.OutputBytes)
			}
			if edgeBytes(g, "mm", "nms") != 24 || edgeBytes(g, "nms2", "topk") < 0 {
				t.Error("placeholders are not connected to their neighbours")
			}
			if len(g.Warnings) != tc.warnings {
				t.Fatalf("warnings %q, want %d (one per unsupported type, one for the nodes downstream)", g.Warnings, tc.warnings)
			}
			if !strings.Contains(g.Warnings[0], `unsupported op type NonMaxSuppression: 2 node(s) imported as zero-cost placeholders (first "nms")`) ||
				!strings.Contains(g.Warnings[1], "unsupported op type TopK: 1 node(s)") ||
				!strings.Contains(g.Warnings[2], `read an output of an unsupported op whose shape no value_info gives`) {
				t.Errorf("warnings %q", g.Warnings)
			}
		})
	}
	if g := parse(t, lenientModel(true), onnx.Options{Lenient: true, Training: true}); len(g.Warnings) != 3 {
		t.Errorf("training graph lost the warnings: %q", g.Warnings)
	}
	if g := parse(t, tinyCNNWith(2), onnx.Options{Lenient: true}); len(g.Warnings) != 0 {
		t.Errorf("a supported model has warnings: %q", g.Warnings)
	}
}
