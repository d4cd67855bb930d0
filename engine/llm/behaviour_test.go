package llm

import (
	"encoding/json"
	"testing"
)

func sim(t *testing.T, model, layout string) *Result {
	t.Helper()
	r, err := Simulate(job(t, model, layout, "dgx-h100"))
	if err != nil {
		t.Fatalf("%s %s: %v", model, layout, err)
	}
	return r
}

// Each dimension of the layout shows where the frameworks put its cost.
func TestLayoutDimensionsCost(t *testing.T) {
	const llama = "zoo:llama3.1-8b?layers=8&seq=8192"
	base := sim(t, llama, "tp=2,pp=2,dp=2,mbs=1,gbs=8")
	if base.Exposed[CommTP] <= 0 || base.Exposed[CommPP] <= 0 {
		t.Errorf("tp=2 pp=2: exposed %v", base.ExposedByKind())
	}
	if base.Exposed[CommCP] != 0 || base.Exposed[CommEP] != 0 {
		t.Errorf("no cp/ep: exposed %v", base.ExposedByKind())
	}
	// recomputation: more time, less activation memory
	full := sim(t, llama, "tp=2,pp=2,dp=2,mbs=1,gbs=8,recompute=full")
	sel := sim(t, llama, "tp=2,pp=2,dp=2,mbs=1,gbs=8,recompute=selective")
	if !(full.IterationTime > sel.IterationTime && sel.IterationTime > base.IterationTime) {
		t.Errorf("iteration none %.4f selective %.4f full %.4f: want none < selective < full", base.IterationTime, sel.IterationTime, full.IterationTime)
	}
	if !(full.Memory[0].Activations < base.Memory[0].Activations) || full.HFU <= full.MFU {
		t.Errorf("full recompute: activations %d vs %d, HFU %.3f MFU %.3f", full.Memory[0].Activations, base.Memory[0].Activations, full.HFU, full.MFU)
	}
	// sequence parallelism splits the activations of the sequence region
	sp := sim(t, llama, "tp=2,pp=2,dp=2,mbs=1,gbs=8,sp")
	if !(sp.Memory[0].Activations < base.Memory[0].Activations) {
		t.Errorf("sp activations %d not below %d", sp.Memory[0].Activations, base.Memory[0].Activations)
	}
	// context parallelism splits the sequence (half the activations
	// per GPU); its K/V ring across the nodes hides behind the attention
	// blocks at 8,192 tokens
	cp1 := sim(t, llama, "tp=8,dp=2,mbs=1,gbs=4")
	cp := sim(t, llama, "tp=8,cp=2,mbs=1,gbs=4")
	if 2*cp.Memory[0].ActivationsPerMicroBatch != cp1.Memory[0].ActivationsPerMicroBatch || cp.Exposed[CommCP] < 0 {
		t.Errorf("cp=2 activations %d, cp=1 %d; exposed %v", cp.Memory[0].ActivationsPerMicroBatch, cp1.Memory[0].ActivationsPerMicroBatch, cp.ExposedByKind())
	}
	// sharding: ZeRO-3 gathers the parameters before every forward and
	// backward, which short sequences cannot hide
	const short = "zoo:llama3.1-8b?layers=8&seq=1024"
	z1 := sim(t, short, "dp=16,mbs=1,gbs=64,zero=1")
	z3 := sim(t, short, "dp=16,mbs=1,gbs=64,fsdp")
	if !(z3.Memory[0].State() < z1.Memory[0].State()) || !(z3.Exposed[CommDP] > z1.Exposed[CommDP]) {
		t.Errorf("zero1 state %d DP %.4f, fsdp state %d DP %.4f", z1.Memory[0].State(), z1.Exposed[CommDP], z3.Memory[0].State(), z3.Exposed[CommDP])
	}
	// GPipe holds every micro-batch; 1F1B at most pp
	g := sim(t, llama, "pp=4,mbs=1,gbs=16,schedule=gpipe")
	o := sim(t, llama, "pp=4,mbs=1,gbs=16")
	if g.Memory[0].InFlight != 16 || o.Memory[0].InFlight != 4 {
		t.Errorf("in flight: gpipe %d (want 16), 1f1b %d (want 4)", g.Memory[0].InFlight, o.Memory[0].InFlight)
	}
}

// Expert parallelism: all-to-alls around the experts; an imbalanced
// router slows the iteration.
func TestMoE(t *testing.T) {
	const mix = "zoo:mixtral-8x7b?layers=4&seq=4096"
	bal := sim(t, mix, "tp=1,ep=8,dp=8,mbs=1,gbs=8,zero=1")
	if bal.Exposed[CommEP] <= 0 {
		t.Fatalf("ep=8: exposed %v", bal.ExposedByKind())
	}
	skew := sim(t, mix+"&imbalance=1.5", "tp=1,ep=8,dp=8,mbs=1,gbs=8,zero=1")
	if !(skew.IterationTime > bal.IterationTime*1.1) {
		t.Errorf("imbalance 1.5: %.4f s vs balanced %.4f s", skew.IterationTime, bal.IterationTime)
	}
	// experts split over ep: expert state per GPU shrinks 8x from ep=1
	one := sim(t, mix, "tp=1,ep=1,dp=8,mbs=1,gbs=8,zero=1")
	if !(bal.Memory[0].Weights < one.Memory[0].Weights/3) {
		t.Errorf("ep=8 weights %d, ep=1 %d", bal.Memory[0].Weights, one.Memory[0].Weights)
	}
}

func TestJobErrors(t *testing.T) {
	for _, c := range []struct{ model, layout, want string }{
		{"zoo:llama3.1-8b", "tp=3", "tp = 3"},
		{"zoo:llama3.1-8b", "ep=2,dp=2", "ep = 2 on dense"},
		{"zoo:llama3.1-8b?layers=4", "pp=8", "layers"},
		{"zoo:mixtral-8x7b", "ep=3,dp=3", "ep = 3"},
	} {
		m := job(t, c.model, c.layout, "dgx-h100")
		_, err := Simulate(m)
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%s %s: error %v, want it to say %q", c.model, c.layout, err, c.want)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// The trace holds every chunk of every rank and the communication.
func TestChromeTrace(t *testing.T) {
	r := sim(t, "zoo:llama3.1-8b?layers=8&seq=4096", "pp=2,vp=2,dp=2,mbs=1,gbs=8,zero=1")
	b, err := ChromeTrace(r)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		TraceEvents []struct {
			Ph, Cat string
			Pid     int
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range v.TraceEvents {
		if e.Ph == "X" {
			count[e.Cat]++
		}
	}
	// 2 ranks x 4 micro-batches x 2 chunks
	if count["forward"] != 16 || count["backward"] != 16 || count["DP"] == 0 || count["PP"] == 0 {
		t.Fatalf("events by category %v", count)
	}
}
