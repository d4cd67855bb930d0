package celeritas

import (
	"placesim/placers"
	"placesim/placers/graphalg"
)

// optionDecls declares the options both placers share (see options).
func optionDecls() []placers.Option {
	return append(graphalg.FusionOptionDecls(true), graphalg.PrioritiesDecl(),
		placers.Option{Name: "besteffort", Type: placers.Bool, Default: "false",
			Doc: "put an op that fits no device on the least-used one (sections 5.2, 6.3) instead of failing"})
}

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "order-place", Description: "Celeritas Order-Place: fused graph in CPD-TOPO order, each device filled to its memory in turn", New: NewOrderPlace,
			Options: optionDecls()},
		{Name: "celeritas", Description: "Celeritas: operation fusion (R=200, M=0.25) then Adjusting Placement (EST with insertion, back_cost rule)", New: NewCeleritas,
			Options: optionDecls()},
	} {
		if err := r.Add(e); err != nil {
			return err
		}
	}
	return nil
}
