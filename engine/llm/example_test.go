package llm_test

import (
	"fmt"

	"placesim/engine/llm"
	"placesim/parallel"
	"placesim/workloads/zoo"
)

// Simulate one iteration of Llama 3.1 70B on 64 H100 with NVIDIA's
// benchmark layout and read its memory verdict.
func ExampleSimulate() {
	m, _ := zoo.LLMByName("llama3.1-70b")
	l, _ := parallel.Parse("tp=4,pp=4,cp=2,dp=2,vp=5,sp,zero=1,mbs=1,gbs=128")
	c, _ := llm.System("dgx-h100", l.GPUs())
	r, err := llm.Simulate(&llm.Job{Model: m, Layout: l, Cluster: c})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("fits:", r.OOM == nil, "stages:", len(r.Stages), "first stage holds", r.Memory[0].InFlight, "chunks in flight")
	// Output: fits: true stages: 20 first stage holds 23 chunks in flight
}
