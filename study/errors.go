package study

import (
	"errors"
	"fmt"
	"math"
)

// ErrNonFinite marks a simulation whose step time or throughput is not a
// finite number (an input such as a device efficiency of 1e-320 drives
// times to +Inf): such a result is an error, never a printed number.
var ErrNonFinite = errors.New("non-finite result")

// checkFinite returns ErrNonFinite naming the first of step time and
// throughput that is NaN or infinite.
func checkFinite(stepTime, throughput float64) error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"step time", stepTime}, {"throughput", throughput}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return fmt.Errorf("%w: %s is %v (an input drives a time or rate out of float64 range; check the cluster's device and link figures)", ErrNonFinite, v.name, v.x)
		}
	}
	return nil
}

// checkRecordsFinite refuses records whose step time or throughput is not
// finite (json cannot encode them and they are no result).
func checkRecordsFinite(rs []Record) error {
	for i := range rs {
		if err := checkFinite(rs[i].StepTime, rs[i].Throughput); err != nil {
			return fmt.Errorf("point %s: %w", rs[i].Point.Key(), err)
		}
	}
	return nil
}
