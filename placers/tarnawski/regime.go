package tarnawski

import "placesim/placers"

var (
	_ placers.RegimeDeclarer = (*DP)(nil)
	_ placers.RegimeDeclarer = (*IP)(nil)
	_ placers.RegimeDeclarer = (*PipeDream)(nil)
	_ placers.RegimeDeclarer = (*Greedy)(nil)
)

// NativeRegime implements placers.RegimeDeclarer: a max-load split is made
// for a pipeline (section 3).
func (*DP) NativeRegime() placers.Regime { return placers.RegimePipeline }

// NativeRegime implements placers.RegimeDeclarer (a max-load split).
func (*IP) NativeRegime() placers.Regime { return placers.RegimePipeline }

// NativeRegime implements placers.RegimeDeclarer (PipeDream's stages).
func (*PipeDream) NativeRegime() placers.Regime { return placers.RegimePipeline }

// NativeRegime implements placers.RegimeDeclarer (a max-load split).
func (*Greedy) NativeRegime() placers.Regime { return placers.RegimePipeline }
