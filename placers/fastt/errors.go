package fastt

import "errors"

// ErrBadSplit is wrapped by the errors of an operator split that cannot
// be made: fewer than two parts, a dimension the op does not have, or a
// dimension not divisible by the number of parts.
var ErrBadSplit = errors.New("bad operator split")

// ErrNoDataParallel is wrapped when a graph cannot be trained data
// parallel on a cluster (CPU-only ops, no accelerator).
var ErrNoDataParallel = errors.New("data parallelism not possible")
