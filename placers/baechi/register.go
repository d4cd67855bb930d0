package baechi

import "placesim/placers"

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "m-topo", Description: "Baechi m-TOPO: topological order, each device filled up to a memory share (opt coarsen=true)", New: NewMTopo},
		{Name: "m-etf", Description: "Baechi m-ETF: earliest start first with communication, memory-aware (opt coarsen=true)", New: NewMETF},
		{Name: "m-sct", Description: "Baechi m-SCT: m-ETF with LP-relaxation favourite children (opts lp=auto|gonum|cbc, window=N, coarsen=true)", New: NewMSCT},
	} {
		if err := r.Register(e.Name, e.Description, e.New); err != nil {
			return err
		}
	}
	return nil
}
