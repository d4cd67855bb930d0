package study

import (
	"errors"
	"fmt"
	"math"

	"placesim/devices"
	"placesim/workloads/zoo"
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

// ErrUnknownTarget marks a what-if setting that names a link family,
// device kind or field the cluster does not have (link.nvlnk.bandwidth):
// a run refuses it before any point runs.
var ErrUnknownTarget = errors.New("unknown what-if target")

// ErrMisspelt reports whether err is a misspelt name that would fail
// every point alike: an unknown zoo model or parameter, cluster preset or
// what-if target. A run refuses those before any point runs.
func ErrMisspelt(err error) bool {
	return errors.Is(err, ErrUnknownTarget) || errors.Is(err, zoo.ErrUnknownModel) ||
		errors.Is(err, zoo.ErrUnknownParameter) || errors.Is(err, devices.ErrUnknownPreset)
}

// FieldError is bad input named by the field of the request it came from
// ("replicas"), never by a command-line flag: the CLI names the flag the
// person typed (FieldError.Named), a scenario its field.
type FieldError struct {
	// Field is the request's field, e.g. "replicas".
	Field string
	// Msg says what is wrong.
	Msg string
	// Valid is the valid range after the field's name, e.g. "<= 4".
	Valid string
	// Err, when set instead of Msg and Valid, is what is wrong with the
	// field ("placers: unknown placer ...").
	Err error
}

func (e *FieldError) Error() string { return e.Named(e.Field) }

// Unwrap is the wrapped error, if any.
func (e *FieldError) Unwrap() error { return e.Err }

// Named is the error with the field called name (a flag such as
// "--data-parallel", or "dp:N in --regimes").
func (e *FieldError) Named(name string) string {
	if e.Err != nil {
		return name + ": " + e.Err.Error()
	}
	return fmt.Sprintf("%s (valid: %s %s)", e.Msg, name, e.Valid)
}

// fieldErr is err as the error of the request's field.
func fieldErr(field string, err error) error { return &FieldError{Field: field, Err: err} }
