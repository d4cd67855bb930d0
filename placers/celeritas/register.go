package celeritas

import "placesim/placers"

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "order-place", Description: "Celeritas Order-Place: fused graph in CPD-TOPO order, each device filled to its memory in turn", New: NewOrderPlace},
		{Name: "celeritas", Description: "Celeritas: operation fusion (R=200, M=0.25) then Adjusting Placement (EST with insertion, back_cost rule)", New: NewCeleritas},
	} {
		if err := r.Register(e.Name, e.Description, e.New); err != nil {
			return err
		}
	}
	return nil
}
