package baechi

import (
	"placesim/placers"
	"placesim/placers/graphalg"
)

// optionDecls declares the options the three placers share (see options).
func optionDecls() []placers.Option {
	return append(graphalg.FusionOptionDecls(false), graphalg.PrioritiesDecl())
}

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "m-topo", Description: "Baechi m-TOPO: topological order, each device filled up to a memory share", New: NewMTopo,
			Options: optionDecls()},
		{Name: "m-etf", Description: "Baechi m-ETF: earliest start first with communication, memory-aware", New: NewMETF,
			Options: optionDecls()},
		{Name: "m-sct", Description: "Baechi m-SCT: m-ETF with LP-relaxation favourite children", New: NewMSCT,
			Options: append(optionDecls(),
				placers.Option{Name: "lp", Type: placers.Enum, Default: lpAuto, Values: []string{lpAuto, lpGonum, lpCBC},
					Doc: "LP back end for the favourite-child relaxation; auto: gonum up to 24 ops, else CBC when installed"},
				placers.Option{Name: "window", Type: placers.Int, Default: "0", Min: 0, Max: 1 << 30,
					Doc: "ops per LP window along the topological order; 0: 24 for gonum, 1000 for cbc"})},
	} {
		if err := r.Add(e); err != nil {
			return err
		}
	}
	return nil
}
