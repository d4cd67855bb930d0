package baseline

import (
	"placesim/placers"
	"placesim/placers/graphalg"
	"placesim/placers/tarnawski/maxload"
)

// partitionDecls declares the options of the metis and scotch placers; bin
// is the partitioner binary run (default bin).
func partitionDecls(bin string) []placers.Option {
	return append(maxload.PipelineOptionDecls("1f1b"),
		placers.Option{Name: "bin", Type: placers.String, Default: bin, Resource: placers.Executable,
			Doc: "the partitioner binary to run"})
}

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "single", Description: "every op on one device", New: NewSingle,
			Options: []placers.Option{{Name: "device", Type: placers.Int, Default: "-1", Min: -1, Max: 1 << 20,
				Doc: "index of the device in the cluster; -1: the first accelerator"}}},
		{Name: "round-robin", Description: "colocation units dealt to the accelerators in turn, topological order", New: NewRoundRobin},
		{Name: "random", Description: "each colocation unit on a seeded random accelerator", New: NewRandom},
		{Name: "expert", Description: "a device per op or layer from a JSON file", New: NewExpert,
			Options: []placers.Option{{Name: "file", Type: placers.String, Resource: placers.InputFile, Required: true,
				Doc: "JSON file mapping op names or layers to devices (fields: ops, layers, default)"}}},
		{Name: "heft", Description: "HEFT: upward rank, insertion-based earliest finish time; not memory-aware", New: NewHEFT,
			Options: graphalg.FusionOptionDecls(false)},
		{Name: "etf", Description: "ETF: earliest start time first with communication; not memory-aware", New: NewETF,
			Options: graphalg.FusionOptionDecls(false)},
		{Name: "local-search", Description: "random split, best single-unit moves on the max-load, seeded restarts (Tarnawski et al. baseline)", New: NewLocalSearch,
			Options: append(maxload.PipelineOptionDecls("1f1b"),
				placers.Option{Name: "restarts", Type: placers.Int, Default: "10", Min: 1, Max: 1 << 20,
					Doc: "restarts from a seeded random split"},
				placers.Option{Name: "max-moves", Type: placers.Int, Default: "100000", Min: 1, Max: 1 << 30,
					Doc: "moves per restart at most"})},
		{Name: "metis", Description: "METIS k-way partition (gpmetis) of the units weighted by compute and communication", New: NewMETIS,
			Options: partitionDecls("gpmetis")},
		{Name: "scotch", Description: "Scotch partition (scotch_gpart) of the units weighted by compute and communication", New: NewScotch,
			Options: partitionDecls("scotch_gpart")},
	} {
		if err := r.Add(e); err != nil {
			return err
		}
	}
	return nil
}
