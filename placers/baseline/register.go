package baseline

import (
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
	"placesim/placers/maxload"
)

// SingleArgs are single's options.
type SingleArgs struct {
	// Device is the index of the device in the cluster; -1: the first
	// accelerator.
	Device int
}

// Declare implements placers.Args.
func (a *SingleArgs) Declare(d *placers.Decls) {
	d.Int(&a.Device, "device", -1, -1, 1<<20, "index of the device in the cluster; -1: the first accelerator")
}

// ExpertArgs are expert's options.
type ExpertArgs struct {
	// File is the JSON file read (ExpertFile).
	File string
}

// Declare implements placers.Args.
func (a *ExpertArgs) Declare(d *placers.Decls) {
	d.Path(&a.File, "file", placers.InputFile, "", "JSON file mapping op names or layers to devices (fields: ops, layers, default)").Require()
}

// FusionArgs are the options of heft and etf: Celeritas' fusion, off by
// default.
type FusionArgs struct {
	Fusion graphalg.FusionOptions
}

// Declare implements placers.Args.
func (a *FusionArgs) Declare(d *placers.Decls) { a.Fusion.DeclareOptions(d, false) }

// LocalSearchArgs are local-search's options.
type LocalSearchArgs struct {
	// Restarts from a seeded random split.
	Restarts int
	// MaxMoves per restart at most.
	MaxMoves int
	Pipeline maxload.PipelineOptions
}

// Declare implements placers.Args.
func (a *LocalSearchArgs) Declare(d *placers.Decls) {
	a.Pipeline.Declare(d, engine.OneFOneB)
	d.Int(&a.Restarts, "restarts", 10, 1, 1<<20, "restarts from a seeded random split")
	d.Int(&a.MaxMoves, "max-moves", 100000, 1, 1<<30, "moves per restart at most")
}

// PartitionArgs are the options metis and scotch share: the partitioner
// binary and the pipeline the split runs as.
type PartitionArgs struct {
	// Bin is the partitioner binary run.
	Bin      string
	Pipeline maxload.PipelineOptions
}

func (a *PartitionArgs) declare(d *placers.Decls, bin string) {
	a.Pipeline.Declare(d, engine.OneFOneB)
	d.Path(&a.Bin, "bin", placers.Executable, bin, "the partitioner binary to run")
}

// METISArgs are metis' options (bin default gpmetis).
type METISArgs struct{ PartitionArgs }

// Declare implements placers.Args.
func (a *METISArgs) Declare(d *placers.Decls) { a.declare(d, "gpmetis") }

// ScotchArgs are scotch's options (bin default scotch_gpart).
type ScotchArgs struct{ PartitionArgs }

// Declare implements placers.Args.
func (a *ScotchArgs) Declare(d *placers.Decls) { a.declare(d, "scotch_gpart") }

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	return r.AddAll(
		placers.Define("single", "every op on one device", NewSingle),
		placers.Define("round-robin", "colocation units dealt to the accelerators in turn, topological order", NewRoundRobin),
		placers.Define("random", "each colocation unit on a seeded random accelerator", NewRandom),
		placers.Define("expert", "a device per op or layer from a JSON file", NewExpert),
		placers.Define("heft", "HEFT: upward rank, insertion-based earliest finish time; not memory-aware", NewHEFT),
		placers.Define("etf", "ETF: earliest start time first with communication; not memory-aware", NewETF),
		placers.Define("local-search", "random split, best single-unit moves on the max-load, seeded restarts (Tarnawski et al. baseline)", NewLocalSearch),
		placers.Define("metis", "METIS k-way partition (gpmetis) of the units weighted by compute and communication", NewMETIS),
		placers.Define("scotch", "Scotch partition (scotch_gpart) of the units weighted by compute and communication", NewScotch),
	)
}
