package engine

import (
	"errors"
	"fmt"

	"placesim/internal/units"
)

// ErrOOM is wrapped by OOM.Err; a run that runs out of memory returns a
// Result whose OOM field is set, not an error.
var ErrOOM = errors.New("out of memory")

// ErrInvalidPlan is wrapped by errors for a plan that does not fit the
// graph or the cluster.
var ErrInvalidPlan = errors.New("invalid plan")

// ErrDeadlock is returned when ops can never run (a strict order that
// contradicts the graph's dependencies).
var ErrDeadlock = errors.New("deadlock")

// ErrTooLarge is wrapped by errors for a plan whose unrolled step (micro-
// batches x replicas x ops) would need more memory to simulate than
// Options.MaxMemory allows; it is refused before anything is allocated.
var ErrTooLarge = errors.New("simulation too large")

// OOM describes the first allocation that exceeded a device's capacity.
type OOM struct {
	Device     int     `json:"device"`
	DeviceName string  `json:"deviceName"`
	Op         int     `json:"op"`
	OpName     string  `json:"opName"`
	Time       float64 `json:"time"`
	// What was being allocated: "parameters", "output", "temp", "recv",
	// or in a pipelined / data-parallel plan "weight stash" or
	// "all-reduce chunk".
	What      string `json:"what"`
	Requested int64  `json:"requested"`
	InUse     int64  `json:"inUse"`
	Capacity  int64  `json:"capacity"`
}

// Err returns the OOM as an error wrapping ErrOOM.
func (o *OOM) Err() error {
	return fmt.Errorf("%w on %s at %s: op %q asked %s for %s with %s of %s in use",
		ErrOOM, o.DeviceName, units.Seconds(o.Time), o.OpName, units.Bytes(o.Requested), o.What,
		units.Bytes(o.InUse), units.Bytes(o.Capacity))
}
