package llm

import "errors"

// ErrOOM is wrapped by Result.OOM's error: the layout does not fit.
var ErrOOM = errors.New("out of memory")

// ErrJob is wrapped by every error about a job that cannot be simulated
// (a layout that does not match the model or the cluster).
var ErrJob = errors.New("llm job")
