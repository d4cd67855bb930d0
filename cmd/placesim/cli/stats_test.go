package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

func TestStatsCCR(t *testing.T) {
	const spec = "zoo:inception_v3?batch=8&training=true"
	code, out, errs := run(t, "stats", spec, "--cluster", "4xV100-pcie", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var o struct {
		Ops, Edges int
		ParamBytes int64
		SavedBytes int64
		CCR        *struct{ Value float64 }
		Training   bool
		Batch      int
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	g, err := zoo.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	// eq. 1 by hand: transfers between the first two GPUs, compute on the first
	var comm, comp float64
	for _, e := range g.Edges {
		comm += c.TransferTime(0, 1, e.Bytes)
	}
	for i := range g.Ops {
		w, err := c.OpTime(&g.Ops[i], 0)
		if err != nil {
			t.Fatal(err)
		}
		comp += w
	}
	s := workloads.ComputeStats(g)
	switch {
	case o.Ops != len(g.Ops) || o.Edges != len(g.Edges) || !o.Training || o.Batch != 8:
		t.Errorf("ops %d edges %d training %v batch %d, want %d %d true 8", o.Ops, o.Edges, o.Training, o.Batch, len(g.Ops), len(g.Edges))
	case o.ParamBytes != s.ParamBytes || o.SavedBytes != s.SavedBytes || o.SavedBytes == 0:
		t.Errorf("param bytes %d saved %d, want %d %d (> 0)", o.ParamBytes, o.SavedBytes, s.ParamBytes, s.SavedBytes)
	case o.CCR == nil || !scalar.EqualWithinAbsOrRel(o.CCR.Value, comm/comp, 1e-9, 1e-9):
		t.Errorf("CCR %+v, want %g", o.CCR, comm/comp)
	}
	code, out, _ = run(t, "stats", spec, "-c", "4xV100-pcie")
	for _, want := range []string{"ops                ", "CCR                ", "Celeritas eq. 1 on 4xV100-pcie", "kept for backward"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, text output lacks %q:\n%s", code, want, out)
		}
	}
}

func TestStatsErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no workload", []string{"stats"}, "accepts 1 arg(s), received 0"},
		{"unknown model", []string{"stats", "zoo:alexnet"}, `unknown zoo model "alexnet"`},
		{"bad parameter", []string{"stats", "zoo:gnmt?hidden=0"}, `parameter hidden="0"`},
		{"one device", []string{"stats", "zoo:mlp", "-c", "1xV100"}, `CCR of "zoo:mlp?framework=pytorch" on cluster "1xV100": it needs two devices`},
		{"unknown cluster", []string{"stats", "zoo:mlp", "-c", "3xTPU"}, "3xTPU"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(t, tc.args...)
			if code != 1 || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q, want 1 and %q", code, errs, tc.want)
			}
		})
	}
	// without a cluster there is no CCR, and that is not an error
	code, out, errs := run(t, "stats", "zoo:mlp")
	if code != 0 || !strings.Contains(out, "CCR                - (give --cluster)") {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
}

// TestStatsLenient: an ONNX model with unsupported ops is refused naming
// the op, the node and the supported ops; with --lenient it imports with a
// warning per unsupported op type on stderr.
func TestStatsLenient(t *testing.T) {
	const model = "../../../workloads/onnx/testdata/unsupported_ops.onnx"
	code, _, errs := run(t, "stats", model)
	if code == 0 || !strings.Contains(errs, `node "nms" (graph.node[1], NonMaxSuppression): unsupported op type "NonMaxSuppression" (supported: Abs,`) {
		t.Fatalf("strict: exit %d, %s", code, errs)
	}
	code, out, errs := run(t, "stats", model, "--lenient", "--json")
	if code != 0 {
		t.Fatalf("lenient: exit %d, %s", code, errs)
	}
	if n := strings.Count(errs, "warning: "); n != 3 || !strings.Contains(errs, "unsupported op type NonMaxSuppression: 2 node(s)") || !strings.Contains(errs, "unsupported op type TopK: 1 node(s)") {
		t.Fatalf("stderr %q: want one warning per unsupported op type and one for the nodes downstream", errs)
	}
	var o struct {
		Ops      int
		FLOPs    float64
		Warnings []string
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	// x, matmul (with w), nms, relu, nms2, topk, relu2: the
	// matmul's 48 FLOPs and the relu's 6 are all the work
	if o.Ops != 7 || o.FLOPs != 2*2*4*3+6 || len(o.Warnings) != 3 {
		t.Fatalf("lenient stats: %+v", o)
	}
	if code, _, errs := run(t, "stats", "zoo:mlp", "--lenient"); code == 0 || !strings.Contains(errs, "lenient import applies to ONNX models") {
		t.Fatalf("--lenient on a zoo model: exit %d, %s", code, errs)
	}
}

// TestStatsLayerFLOPs: stats prints the forward FLOPs by layer group, so
// that BERT's masked-LM head shows the work of its masked positions: at
// seq 512, 80 positions of a 1024-wide dense and a decoder to 30,522
// words, 2*80*1024*(1024+30522) FLOPs plus the head's pointwise ops (the
// closed form is workloads/zoo's TestBERTMaskedLMHeadAtMaskedPositions).
func TestStatsLayerFLOPs(t *testing.T) {
	code, out, errs := run(t, "stats", "zoo:bert?size=large&seq=512&training=true&batch=1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "mlm" {
			line = l
		}
	}
	if !strings.Contains(out, "forward FLOPs by layer group:") || line == "" {
		t.Fatalf("no mlm group in\n%s", out)
	}
	var flops float64
	if _, err := fmt.Sscan(strings.Fields(line)[1], &flops); err != nil {
		t.Fatal(err)
	}
	gemm := 2 * 80 * 1024 * (1024 + 30522.0)
	if flops < gemm || flops > 1.05*gemm {
		t.Errorf("mlm group %g FLOPs, want the GEMMs' %g and at most 5 %% more", flops, gemm)
	}
}

// TestStatsOps: stats --ops prices every op with the cost model the
// simulation charges (on one device, one stream, their sum is the
// simulated step of the single placer), lists the longest in order with
// their roofline bound, breaks the time down by role and kernel class,
// and refuses what it cannot price, naming the flag.
func TestStatsOps(t *testing.T) {
	const spec = "zoo:mlp?batch=64&training=true"
	code, out, errs := run(t, "stats", spec, "-c", "1xV100", "--ops", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var o struct {
		CCR     any    `json:"ccr"`
		NoCCR   string `json:"noCCR"`
		OpCosts struct {
			Device  string  `json:"device"`
			Ops     int     `json:"ops"`
			Seconds float64 `json:"seconds"`
			ByClass []struct {
				Role    string  `json:"role"`
				Class   string  `json:"class"`
				Seconds float64 `json:"seconds"`
			} `json:"byClass"`
			Top []struct {
				Name    string  `json:"name"`
				Seconds float64 `json:"seconds"`
				Bound   string  `json:"bound"`
			} `json:"top"`
		} `json:"opCosts"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	c := o.OpCosts
	if c.Device != "gpu0" || len(c.Top) != 4 || c.Ops == 0 || o.CCR != nil || !strings.Contains(o.NoCCR, "one device") {
		t.Fatalf("device %q, %d top ops of %d, CCR %v, noCCR %q", c.Device, len(c.Top), c.Ops, o.CCR, o.NoCCR)
	}
	for i, op := range c.Top {
		if i > 0 && op.Seconds > c.Top[i-1].Seconds {
			t.Errorf("top ops out of order: %s %g after %g", op.Name, op.Seconds, c.Top[i-1].Seconds)
		}
		if op.Bound != "compute" && op.Bound != "memory" {
			t.Errorf("op %s: bound %q", op.Name, op.Bound)
		}
	}
	var byClass float64
	for _, k := range c.ByClass {
		byClass += k.Seconds
	}
	if !scalar.EqualWithinAbsOrRel(byClass, c.Seconds, 1e-12, 1e-9) {
		t.Errorf("time by class sums to %g, total %g", byClass, c.Seconds)
	}
	// the same prices as the simulation: one device, one stream
	code, sim, errs := run(t, "simulate", "-w", spec, "-c", "1xV100", "-p", "single", "--format", "json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	var r struct {
		StepTime float64 `json:"stepTime"`
	}
	if err := json.Unmarshal([]byte(sim), &r); err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbsOrRel(r.StepTime, c.Seconds, 1e-12, 1e-9) {
		t.Errorf("ops sum to %g s, the single placer's simulated step is %g s", c.Seconds, r.StepTime)
	}
	code, out, _ = run(t, "stats", spec, "-c", "4xV100-pcie", "--ops", "3")
	for _, want := range []string{"Celeritas eq. 1 on 4xV100-pcie", "op costs           on gpu0 (V100-32GB) of 4xV100-pcie", "longest 3 ops:", "TFLOP/s"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, text output lacks %q:\n%s", code, want, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"stats", spec, "-c", "1xV100", "--ops", "-1"}, "(valid: --ops >= 0"},
		{[]string{"stats", spec, "--ops", "2"}, "(valid: --cluster "},
		{[]string{"stats", "zoo:bert?size=large&seq=512&training=true&batch=8&lengths=wikipedia&bin=64", "-c", "1xV100", "--ops", "2"}, "not one graph"},
	} {
		if code, _, errs := run(t, tc.args...); code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 1 and %q", tc.args, code, errs, tc.want)
		}
	}
}
