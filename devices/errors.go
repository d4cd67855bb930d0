package devices

import "errors"

// ErrUnknownPreset is returned for a cluster name that is no preset.
var ErrUnknownPreset = errors.New("unknown cluster preset")

// ErrUnknownKind is returned for a device kind name that is not registered.
var ErrUnknownKind = errors.New("unknown device kind")

// ErrUnsupported is returned when an op cannot run on a device (a CPU-only
// op on an accelerator).
var ErrUnsupported = errors.New("op not supported on device")
