package pesto

import "placesim/placers"

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "pesto", Description: "Pesto: coarsening to ~200 vertices, then the placement-and-scheduling ILP on CBC, m-ETF warm start (opts vertices=, timelimit=, gap=, memory=balance|limit|none, slack=, congestion=, schedule=order|priority|none)", New: New},
		{Name: "pesto-expert", Description: "Pesto's Expert placements: LSTM/Transformer layers split across GPUs, embedding first, attention and softmax last; NASNet branches spread", New: NewExpert},
	} {
		if err := r.Register(e.Name, e.Description, e.New); err != nil {
			return err
		}
	}
	return nil
}
