package tarnawski

import (
	"time"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/maxload"
	"placesim/placers/mip"
)

// PipelineArgs are the options of pipedream and greedy, and the ones every
// placer of this package shares: how the split runs as a pipeline
// (pipeline, default 1f1b; micro-batches).
type PipelineArgs struct {
	Pipeline maxload.PipelineOptions
}

// Declare implements placers.Args.
func (a *PipelineArgs) Declare(d *placers.Decls) { a.Pipeline.Declare(d, engine.OneFOneB) }

// DPArgs are the options of tarnawski-dp and tarnawski-dpl.
type DPArgs struct {
	PipelineArgs
	// MaxMemoryMiB bounds the memory of the DP's ideals, lattice and
	// table.
	MaxMemoryMiB int
	// Workers fill the DP table; 0: GOMAXPROCS.
	Workers int
}

// Declare implements placers.Args.
func (a *DPArgs) Declare(d *placers.Decls) {
	a.PipelineArgs.Declare(d)
	d.Int(&a.MaxMemoryMiB, "max-memory-mib", DefaultMaxMemoryMiB, 1, 1<<20,
		"memory (MiB) the DP's ideals, lattice and table may take; beyond it the DP stops, naming the ideals and memory it would need")
	d.Int(&a.Workers, "workers", 0, 0, 1024, "goroutines filling the DP table; 0: GOMAXPROCS")
}

// IPArgs are tarnawski-ip's options.
type IPArgs struct {
	PipelineArgs
	// Objective is what the IP minimises: throughput (the max-load) or
	// latency (one sample's).
	Objective string
	// TimeLimit is CBC's time limit, enforced with a grace of half of it
	// plus 5 s.
	TimeLimit time.Duration
	// NodeLimit is CBC's branch-and-bound node limit; 0: none.
	NodeLimit int
	// Gap is the relative optimality gap.
	Gap float64
	// Threads is CBC's thread count (1: deterministic).
	Threads int
	// WarmStart is dp (start CBC from the DP's split) or none.
	WarmStart string
	// Format is the model file format given to the solver.
	Format mip.Format
	// MaxMemoryMiB bounds the warm-start DP's memory.
	MaxMemoryMiB int
	// Keep is a directory that keeps the model, start, solution and
	// solver log ("": none).
	Keep string
	// Solver is the cbc binary ("": cbc on PATH).
	Solver string
}

// Declare implements placers.Args.
func (a *IPArgs) Declare(d *placers.Decls) {
	a.PipelineArgs.Declare(d)
	placers.DeclareEnum(d, &a.Objective, "objective", "throughput", []string{"throughput", "latency"},
		"what the IP minimises: the max-load (throughput) or one sample's latency")
	d.Duration(&a.TimeLimit, "time-limit", 30*time.Second, 10*time.Millisecond, 1e7*time.Second,
		"CBC's time limit (enforced with a grace of half of it plus 5 s)")
	d.Int(&a.NodeLimit, "node-limit", 0, 0, 1<<30, "CBC's branch-and-bound node limit (deterministic); 0: none")
	d.Float(&a.Gap, "gap", 0.01, 0, 1, "relative optimality gap (the paper's 1 %)")
	d.Int(&a.Threads, "threads", 1, 1, 256, "CBC threads (1: deterministic)")
	placers.DeclareEnum(d, &a.WarmStart, "warm-start", "dp", []string{"dp", "none"}, "start CBC from the DP's split")
	placers.DeclareEnum(d, &a.Format, "format", mip.MPS, []mip.Format{mip.MPS, mip.LP}, "model file format given to the solver")
	d.Int(&a.MaxMemoryMiB, "max-memory-mib", DefaultMaxMemoryMiB, 1, 1<<20,
		"memory (MiB) the warm-start DP may take (beyond it: DPL's split)")
	d.Path(&a.Keep, "keep", placers.Directory, "", "keep the model, start, solution and solver log in this directory")
	d.Path(&a.Solver, "solver", placers.Executable, "", "the cbc binary to run (default: cbc on PATH)")
}

// IPNonContigArgs are tarnawski-ip-noncontig's options: IPArgs and slots.
type IPNonContigArgs struct {
	IPArgs
	// Slots is, with objective=latency, the number of contiguous
	// subgraphs per accelerator (Figure 6).
	Slots int
}

// Declare implements placers.Args.
func (a *IPNonContigArgs) Declare(d *placers.Decls) {
	a.IPArgs.Declare(d)
	d.Int(&a.Slots, "slots", 2, 1, 64, "with objective=latency, contiguous subgraphs per accelerator (Figure 6)")
}

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	return r.AddAll(
		placers.Define("tarnawski-dp", "Tarnawski et al.: max-load DP over ideals, optimal contiguous split on k accelerators + l CPUs, pipelined", NewDP),
		placers.Define("tarnawski-dpl", "Tarnawski et al.: the DP on a DFS-linearised graph (DPL), |V|+1 ideals", NewDPL),
		placers.Define("tarnawski-ip", "Tarnawski et al.: max-load (or latency) IP, contiguous splits, CBC", NewIP),
		placers.Define("tarnawski-ip-noncontig", "Tarnawski et al.: max-load (or latency) IP, non-contiguous splits, CBC", NewIPNonContig),
		placers.Define("pipedream", "PipeDream's optimizer (SOSP'19) on the graph with branchings contracted to a path", NewPipeDream),
		placers.Define("greedy", "Tarnawski et al. appendix F: topological order, fill each accelerator to its memory, the rest on a CPU", NewGreedy),
	)
}
