package study

import (
	"errors"
	"fmt"
)

// ErrImplausible marks a simulated step whose time has no meaning: 0 s
// (every op costs nothing: measured at 0, no FLOPs and no bytes) or above
// MaxStepTime (an input such as a bandwidth of 1e-300 GB/s or an op
// measured at 1.797e308 s). Such a result is an error naming the inputs,
// never a "0.00 samples/s" or a 300-digit time.
var ErrImplausible = errors.New("implausible result")

// MaxStepTime bounds a simulated step: 10^12 s, about 31,700 years. No
// training step of any model on any machine placesim models comes within
// orders of magnitude of it (GPT-3's 3.1e23 FLOPs on one 1 TFLOP/s CPU
// would take 3.1e11 s); a time above it comes from an input out of every
// physical range, and printing it would give a number of hundreds of
// digits.
const MaxStepTime = 1e12

// checkPlausible refuses a finite step time that is 0 or above
// MaxStepTime, naming the workload and cluster that made it.
func checkPlausible(stepTime float64, workload, cluster string) error {
	switch {
	case stepTime == 0:
		return fmt.Errorf("%w: step time is 0 s: every op of workload %q costs nothing on cluster %q (ops measured at 0 s, or without FLOPs and bytes; valid: a workload with work to simulate)",
			ErrImplausible, workload, cluster)
	case stepTime < 0 || stepTime > MaxStepTime:
		return fmt.Errorf("%w: step time %.4g s is outside (0, %g] s (%.0f years): an input of workload %q or cluster %q is out of any physical range (an op's measured time, a FLOP count, a bandwidth, rate or efficiency near 0)",
			ErrImplausible, stepTime, float64(MaxStepTime), MaxStepTime/3.15576e7, workload, cluster)
	}
	return nil
}
