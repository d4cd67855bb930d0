package workloads

import "errors"

// ErrCycle is wrapped by errors for a graph that is not acyclic.
var ErrCycle = errors.New("graph has a cycle")

// ErrInvalid is wrapped by every other validation error.
var ErrInvalid = errors.New("invalid graph")

// ErrOverflow is wrapped by the error for a graph whose total of some size
// overflows an int64: sizes a generator's parameters (a zoo model's seq,
// hidden, batch) or a file made too large, never a bug.
var ErrOverflow = errors.New("overflows int64")
