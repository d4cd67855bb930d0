package llm

import (
	"errors"
	"math"
	"strings"
	"testing"

	"placesim/parallel"
	"placesim/workloads/zoo"
)

func job(t *testing.T, model, layout, system string) *Job {
	t.Helper()
	m, err := zoo.ParseLLM(model)
	if err != nil {
		t.Fatal(err)
	}
	l, err := parallel.Parse(layout)
	if err != nil {
		t.Fatal(err)
	}
	c, err := System(system, l.GPUs())
	if err != nil {
		t.Fatal(err)
	}
	return &Job{Model: m, Layout: l, Cluster: c}
}

func TestLlama70BRuns(t *testing.T) {
	j := job(t, "zoo:llama3.1-70b", "tp=4,pp=4,cp=2,dp=2,vp=5,sp,zero=1,recompute=none,mbs=1,gbs=128", "dgx-h100")
	r, err := Simulate(j)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("iteration %.3f s, %.0f tok/s/GPU, %.0f TFLOP/s/GPU, MFU %.3f, bubble %.3f, exposed %v, peak %.1f GB oom %v",
		r.IterationTime, r.TokensPerSecPerGPU, r.ModelTFLOPsPerGPU, r.MFU, r.Bubble, r.ExposedByKind(), gb(r.PeakMemory), r.OOM != nil)
	for _, m := range r.Memory {
		t.Logf("%+v", m)
	}
}

// Issue 25: Llama 3.1 70B, TP1 PP1 DP64 without sharding on 80 GB GPUs:
// weights, gradients and Adam state alone (18 bytes per parameter) exceed
// the memory; with FSDP over 64 GPUs they are 1/64 of it.
func TestLlama70BOOMAndFSDP(t *testing.T) {
	j := job(t, "zoo:llama3.1-70b", "dp=64,gbs=64", "dgx-h100")
	r, err := Simulate(j)
	if err != nil {
		t.Fatal(err)
	}
	if r.OOM == nil {
		t.Fatalf("no OOM verdict, peak %d bytes", r.PeakMemory)
	}
	if !errors.Is(r.OOM.Err, ErrOOM) || r.OOM.Op != "weights, gradients and optimizer state" || !strings.Contains(r.OOM.Err.Error(), "n0-gpu0") {
		t.Fatalf("verdict %v (op %q)", r.OOM.Err, r.OOM.Op)
	}
	whole := r.Memory[0].State()
	if want := 18 * j.Model.ParamCount(); whole != want {
		t.Fatalf("state %d bytes, want 18 x %d parameters = %d", whole, j.Model.ParamCount(), want)
	}
	if whole <= r.Memory[0].Capacity {
		t.Fatalf("state %d fits in %d", whole, r.Memory[0].Capacity)
	}
	t.Log(r.OOM.Err)
	jf := job(t, "zoo:llama3.1-70b", "dp=64,gbs=64,fsdp,recompute=full", "dgx-h100")
	mf, err := MemoryOf(jf)
	if err != nil {
		t.Fatal(err)
	}
	got := mf[0].State()
	if math.Abs(float64(got)-float64(whole)/64) > 3 { // ceil of three divisions
		t.Fatalf("fsdp state %d bytes, want %d/64 = %d", got, whole, whole/64)
	}
}

// A family name is sized to the layout, in the family's unit, and the
// name it gets builds the same system again.
func TestSystemSized(t *testing.T) {
	for _, c := range []struct {
		spec, want string
		gpus       int
	}{{"dgx-h100", "dgx-h100:nodes=3", 17}, {"gb200-nvl72", "gb200-nvl72:racks=2", 100}, {"dgx-a100-80gb:fabric=fat-tree", "dgx-a100-80gb:fabric=fat-tree,nodes=1", 8}} {
		cl, err := System(c.spec, c.gpus)
		if err != nil {
			t.Fatal(err)
		}
		if cl.Name != c.want {
			t.Errorf("%s for %d GPUs: %s, want %s", c.spec, c.gpus, cl.Name, c.want)
		}
		again, err := System(cl.Name, c.gpus)
		if err != nil || len(again.Devices) != len(cl.Devices) {
			t.Errorf("%s again: %v", cl.Name, err)
		}
	}
	if _, err := System("dgx-h100:nodes=1", 9); err == nil {
		t.Error("a one-node system took 9 GPUs")
	}
}
