package fastt

import "placesim/placers"

var _ placers.RegimeDeclarer = (*DataParallel)(nil)

// NativeRegime implements placers.RegimeDeclarer: the plan replicates the
// model (engine.DataParallel), which only a data-parallel regime plays as
// such. (FastT's own placers replicate inside the graph they schedule, a
// placement any regime plays; when they roll back to this plan, its
// replication makes them not comparable outside data parallelism.)
func (*DataParallel) NativeRegime() placers.Regime { return placers.RegimeDataParallel }
