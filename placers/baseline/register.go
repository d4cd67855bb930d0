package baseline

import "placesim/placers"

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "single", Description: "every op on one device (opt device=N)", New: NewSingle},
		{Name: "round-robin", Description: "colocation units dealt to the accelerators in turn, topological order", New: NewRoundRobin},
		{Name: "random", Description: "each colocation unit on a seeded random accelerator", New: NewRandom},
		{Name: "expert", Description: "a device per op or layer from a JSON file (opt file=PATH)", New: NewExpert},
		{Name: "heft", Description: "HEFT: upward rank, insertion-based earliest finish time; not memory-aware (opt coarsen=true)", New: NewHEFT},
		{Name: "etf", Description: "ETF: earliest start time first with communication; not memory-aware (opt coarsen=true)", New: NewETF},
		{Name: "local-search", Description: "random split, best single-unit moves on the max-load, 10 seeded restarts (Tarnawski et al. baseline)", New: NewLocalSearch},
		{Name: "metis", Description: "METIS k-way partition (gpmetis) of the units weighted by compute and communication", New: NewMETIS},
		{Name: "scotch", Description: "Scotch partition (scotch_gpart) of the units weighted by compute and communication", New: NewScotch},
	} {
		if err := r.Register(e.Name, e.Description, e.New); err != nil {
			return err
		}
	}
	return nil
}
