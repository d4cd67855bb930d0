package tarnawski

import "placesim/placers"

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "tarnawski-dp", Description: "Tarnawski et al.: max-load DP over ideals, optimal contiguous split on k accelerators + l CPUs, pipelined", New: NewDP},
		{Name: "tarnawski-dpl", Description: "Tarnawski et al.: the DP on a DFS-linearised graph (DPL), |V|+1 ideals", New: NewDPL},
		{Name: "tarnawski-ip", Description: "Tarnawski et al.: max-load (or latency) IP, contiguous splits, CBC (opts time-limit, gap, objective)", New: NewIP},
		{Name: "tarnawski-ip-noncontig", Description: "Tarnawski et al.: max-load (or latency) IP, non-contiguous splits, CBC", New: NewIPNonContig},
		{Name: "pipedream", Description: "PipeDream's optimizer (SOSP'19) on the graph with branchings contracted to a path", New: NewPipeDream},
		{Name: "greedy", Description: "Tarnawski et al. appendix F: topological order, fill each accelerator to its memory, the rest on a CPU", New: NewGreedy},
	} {
		if err := r.Register(e.Name, e.Description, e.New); err != nil {
			return err
		}
	}
	return nil
}
