package baechi

import (
	"placesim/placers"
	"placesim/placers/graphalg"
)

// Args are the options of m-TOPO and m-ETF, and the ones m-SCT shares:
// Celeritas' fusion (coarsen, range, memfrac; default off) and priorities.
type Args struct {
	Fusion graphalg.FusionOptions
	// Priorities attaches the estimated schedule's order to the plan (m-ETF
	// and m-SCT); off by default: Baechi outputs a placement, which
	// TensorFlow's executor runs in its own order.
	Priorities bool
}

// Declare implements placers.Args.
func (a *Args) Declare(d *placers.Decls) {
	a.Fusion.DeclareOptions(d, false)
	graphalg.DeclarePriorities(d, &a.Priorities)
}

func (a Args) options() options { return options{fo: a.Fusion, priorities: a.Priorities} }

// SCTArgs are m-SCT's options: Args, the LP back end and its window.
type SCTArgs struct {
	Args
	// LP is the back end of the favourite-child relaxation.
	LP string
	// Window is the number of ops per LP window (0: 24 for gonum, 1000
	// for cbc).
	Window int
}

// Declare implements placers.Args.
func (a *SCTArgs) Declare(d *placers.Decls) {
	a.Args.Declare(d)
	placers.DeclareEnum(d, &a.LP, "lp", lpAuto, []string{lpAuto, lpGonum, lpCBC},
		"LP back end for the favourite-child relaxation; auto: gonum up to 24 ops, else CBC when installed")
	d.Int(&a.Window, "window", 0, 0, 1<<30, "ops per LP window along the topological order; 0: 24 for gonum, 1000 for cbc")
}

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	return r.AddAll(
		placers.Define("m-topo", "Baechi m-TOPO: topological order, each device filled up to a memory share", NewMTopo),
		placers.Define("m-etf", "Baechi m-ETF: earliest start first with communication, memory-aware", NewMETF),
		placers.Define("m-sct", "Baechi m-SCT: m-ETF with LP-relaxation favourite children", NewMSCT),
	)
}
