package tarnawski

import (
	"strconv"

	"placesim/placers"
	"placesim/placers/tarnawski/maxload"
)

// pipelineDecls declares pipeline (default 1f1b) and micro-batches.
func pipelineDecls() []placers.Option { return maxload.PipelineOptionDecls("1f1b") }

// dpDecls declares the options of tarnawski-dp and tarnawski-dpl.
func dpDecls() []placers.Option {
	return append(pipelineDecls(),
		placers.Option{Name: "max-memory-mib", Type: placers.Int, Default: strconv.Itoa(DefaultMaxMemoryMiB), Min: 1, Max: 1 << 20,
			Doc: "memory (MiB) the DP's ideals, lattice and table may take; beyond it the DP stops, naming the ideals and memory it would need"},
		placers.Option{Name: "workers", Type: placers.Int, Default: "0", Min: 0, Max: 1024,
			Doc: "goroutines filling the DP table; 0: GOMAXPROCS"})
}

// ipDecls declares the options of tarnawski-ip (and, with slots, those of
// tarnawski-ip-noncontig).
func ipDecls(slots bool) []placers.Option {
	d := append(pipelineDecls(),
		placers.Option{Name: "objective", Type: placers.Enum, Default: "throughput", Values: []string{"throughput", "latency"},
			Doc: "what the IP minimises: the max-load (throughput) or one sample's latency"},
		placers.Option{Name: "time-limit", Type: placers.Float, Default: "30", Min: 0.01, Max: 1e7,
			Doc: "CBC's time limit in seconds (enforced with a grace of half of it plus 5 s)"},
		placers.Option{Name: "node-limit", Type: placers.Int, Default: "0", Min: 0, Max: 1 << 30,
			Doc: "CBC's branch-and-bound node limit (deterministic); 0: none"},
		placers.Option{Name: "gap", Type: placers.Float, Default: "0.01", Min: 0, Max: 1,
			Doc: "relative optimality gap (the paper's 1 %)"},
		placers.Option{Name: "threads", Type: placers.Int, Default: "1", Min: 1, Max: 256,
			Doc: "CBC threads (1: deterministic)"},
		placers.Option{Name: "warm-start", Type: placers.Enum, Default: "dp", Values: []string{"dp", "none"},
			Doc: "start CBC from the DP's split"},
		placers.Option{Name: "format", Type: placers.Enum, Default: "mps", Values: []string{"mps", "lp"},
			Doc: "model file format given to the solver"},
		placers.Option{Name: "max-memory-mib", Type: placers.Int, Default: strconv.Itoa(DefaultMaxMemoryMiB), Min: 1, Max: 1 << 20,
			Doc: "memory (MiB) the warm-start DP may take (beyond it: DPL's split)"},
		placers.Option{Name: "keep", Type: placers.String, Resource: placers.Directory,
			Doc: "keep the model, start, solution and solver log in this directory"},
		placers.Option{Name: "solver", Type: placers.String, Resource: placers.Executable,
			Doc: "the cbc binary to run (default: cbc on PATH)"})
	if slots {
		d = append(d, placers.Option{Name: "slots", Type: placers.Int, Default: "2", Min: 1, Max: 64,
			Doc: "with objective=latency, contiguous subgraphs per accelerator (Figure 6)"})
	}
	return d
}

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "tarnawski-dp", Description: "Tarnawski et al.: max-load DP over ideals, optimal contiguous split on k accelerators + l CPUs, pipelined", New: NewDP,
			Options: dpDecls()},
		{Name: "tarnawski-dpl", Description: "Tarnawski et al.: the DP on a DFS-linearised graph (DPL), |V|+1 ideals", New: NewDPL,
			Options: dpDecls()},
		{Name: "tarnawski-ip", Description: "Tarnawski et al.: max-load (or latency) IP, contiguous splits, CBC", New: NewIP,
			Options: ipDecls(false)},
		{Name: "tarnawski-ip-noncontig", Description: "Tarnawski et al.: max-load (or latency) IP, non-contiguous splits, CBC", New: NewIPNonContig,
			Options: ipDecls(true)},
		{Name: "pipedream", Description: "PipeDream's optimizer (SOSP'19) on the graph with branchings contracted to a path", New: NewPipeDream,
			Options: pipelineDecls()},
		{Name: "greedy", Description: "Tarnawski et al. appendix F: topological order, fill each accelerator to its memory, the rest on a CPU", New: NewGreedy,
			Options: pipelineDecls()},
	} {
		if err := r.Add(e); err != nil {
			return err
		}
	}
	return nil
}
