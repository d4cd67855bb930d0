package maxload

import "errors"

// ErrNoAccelerator is returned for a cluster without accelerators (k = 0):
// the model splits a graph over k >= 1 accelerators and l >= 0 CPUs.
var ErrNoAccelerator = errors.New("the max-load model needs at least one accelerator (k = 0)")
