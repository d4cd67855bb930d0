package workloads

import "errors"

// ErrCycle is wrapped by errors for a graph that is not acyclic.
var ErrCycle = errors.New("graph has a cycle")

// ErrInvalid is wrapped by every other validation error.
var ErrInvalid = errors.New("invalid graph")
