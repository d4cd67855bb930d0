package llm

import (
	"fmt"
	"slices"

	"placesim/devices"
)

// dpSpread is how pipeline rank r's representative's data-parallel (x
// context-parallel) group sits in the nodes (NVLink domains): its
// members per node, ascending.
func (j *Job) dpSpread(cv *devices.CommView, r int) []int {
	l := j.Layout
	per := map[int32]int{}
	for d := 0; d < l.DP; d++ {
		for c := 0; c < l.CP; c++ {
			per[cv.Node[j.rank(0, c, d, r)]]++
		}
	}
	n := make([]int, 0, len(per))
	for _, k := range per {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// spreadNotes say which pipeline ranks' data-parallel groups spread
// unevenly over the nodes (NVLink domains): when the domain size does not
// divide a pipeline rank's tp x cp x dp GPUs, Megatron's rank order puts
// a different number of a group's members in each domain, and NCCL's
// ring crosses the network from each domain through the adapters of the
// members it holds there (one rail per GPU), so the domain holding the
// fewest members sets the ring's network bandwidth: 405B at tp=8, dp=16
// on 24-GPU domains spreads pipeline rank 0's group as 1+3+3+3+3+3 and
// reduces its gradients as slowly as on 8-GPU domains (one member per
// domain), while 32-GPU domains hold 4 each. This is the saw-tooth of an
// NVLink-domain sweep at 8/24/40 (and 16/56) GPUs.
func (j *Job) spreadNotes() []string {
	l := j.Layout
	if l.DP*l.CP < 2 {
		return nil
	}
	var out []string
	cv := j.Cluster.Comm()
	for r := 0; r < l.PP; r++ {
		s := j.dpSpread(cv, r)
		if s[0] == s[len(s)-1] {
			continue
		}
		if len(out) == 3 {
			out = append(out, "... (more pipeline ranks)")
			break
		}
		out = append(out, fmt.Sprintf("pipeline rank %d's data-parallel group spreads unevenly over the NVLink domains (%v members per domain, the domain size not dividing the rank's GPUs): NCCL's ring leaves its sparsest domain through that domain's %d adapter(s), which caps the gradient reduction as %d member(s) per domain would",
			r, s, s[0], s[0]))
	}
	return out
}
