package devices

import (
	"fmt"
	"math"

	"placesim/workloads"
)

// OpTime is the true compute time of op on a device of kind k. A measured
// time wins, looked up by the kind's name, then its class
// ("accelerator"/"cpu"), then "*". Otherwise the roofline:
//
//	t = max(FLOPs / (PeakFLOPS*ComputeEfficiency),
//	        BytesAccessed / (MemBandwidth*MemEfficiency)) + LaunchOverhead
//
// Measured times are multiplied by k.MeasuredScale when it is set.
// A CPU-only op on an accelerator is an error wrapping ErrUnsupported.
func OpTime(op *workloads.Op, k *Kind) (float64, error) {
	if op.CPUOnly && k.Class != CPU {
		return 0, fmt.Errorf("%w: op %q is CPU-only, device kind %s is an accelerator", ErrUnsupported, op.Name, k.Name)
	}
	if m := op.Measured; m != nil {
		t, ok := m[k.Name]
		if !ok {
			t, ok = m[string(k.Class)]
		}
		if !ok {
			t, ok = m[workloads.MeasuredAny]
		}
		if ok {
			if k.MeasuredScale > 0 {
				t *= k.MeasuredScale
			}
			return t, nil
		}
	}
	c := op.FLOPs / (k.PeakFLOPS * k.ComputeEfficiency)
	mem := float64(op.BytesAccessed) / (k.MemBandwidth * k.MemEfficiency)
	return math.Max(c, mem) + k.LaunchOverhead, nil
}
