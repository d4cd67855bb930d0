package fastt

import "placesim/placers"

var (
	_ placers.RegimeDeclarer = (*FastT)(nil)
	_ placers.RegimeDeclarer = (*DataParallel)(nil)
)

// NativeRegime implements placers.RegimeDeclarer: FastT starts from data
// parallelism (section 5.2) and keeps it when it is fastest, so its plan
// may replicate the model; with start=model it is a placement like any.
func (f *FastT) NativeRegime() placers.Regime {
	if f.start == StartDataParallel {
		return placers.RegimeDataParallel
	}
	return placers.RegimeAny
}

// NativeRegime implements placers.RegimeDeclarer: the plan replicates the
// model.
func (*DataParallel) NativeRegime() placers.Regime { return placers.RegimeDataParallel }
