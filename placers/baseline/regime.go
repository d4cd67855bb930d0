package baseline

import "placesim/placers"

var (
	_ placers.RegimeDeclarer = (*Partitioner)(nil)
	_ placers.RegimeDeclarer = (*LocalSearch)(nil)
)

// NativeRegime implements placers.RegimeDeclarer: a balanced partition
// minimises the busiest part's load, which is a pipeline's period.
func (*Partitioner) NativeRegime() placers.Regime { return placers.RegimePipeline }

// NativeRegime implements placers.RegimeDeclarer: local search minimises
// the max-load of its split.
func (*LocalSearch) NativeRegime() placers.Regime { return placers.RegimePipeline }
