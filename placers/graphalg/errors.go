package graphalg

import "errors"

// ErrLoop is returned when a fusion would merge ops into a cluster that
// lies on a cycle of the coarse graph (Celeritas, Theorem 1).
var ErrLoop = errors.New("fusion would create a loop")

// ErrNoDevice is returned when an op has no device it may run on.
var ErrNoDevice = errors.New("no device can run op")

// ErrSplitUnit is returned when a plan would put the ops of one colocation
// unit on different devices.
var ErrSplitUnit = errors.New("colocation unit split")
