package placers

// Regime is the execution regime a placer's plan is made for: how the
// engine plays a step (see engine.Plan's Pipeline and DataParallel).
type Regime string

// Regimes a placer can declare (RegimeDeclarer).
const (
	// RegimeAny: the plan is a placement (devices, maybe an order) that
	// any regime can play; the default for placers that declare nothing.
	RegimeAny Regime = ""
	// RegimePipeline: the plan is a split made for a micro-batch pipeline
	// (a max-load split, Tarnawski et al. section 3: it minimises the
	// busiest device's load per sample, the period of a pipeline, not the
	// latency of one step). It still plays as one step or replicated.
	RegimePipeline Regime = "pipeline"
	// RegimeDataParallel: the placer replicates the model on its own
	// (engine.DataParallel in the plan); such a plan is comparable only in
	// a data-parallel regime, where the placer is given one replica's
	// devices.
	RegimeDataParallel Regime = "data-parallel"
)

// RegimeDeclarer is implemented by a placer whose plan is made for one
// execution regime. A comparison plays every placer in the regime it was
// asked for (the same for all); the declaration says which rows are
// played outside the regime their placer was designed for.
type RegimeDeclarer interface {
	Placer
	// NativeRegime is the regime the placer's plans are made for.
	NativeRegime() Regime
}

// NativeRegime returns p's declared regime, RegimeAny when it declares
// none.
func NativeRegime(p Placer) Regime {
	if d, ok := p.(RegimeDeclarer); ok {
		return d.NativeRegime()
	}
	return RegimeAny
}
