package placers

import "errors"

// ErrUnknownPlacer is returned for a name the registry does not know.
var ErrUnknownPlacer = errors.New("unknown placer")

// ErrDuplicate is returned when a name is registered twice.
var ErrDuplicate = errors.New("placer already registered")

// ErrDoesNotFit is wrapped by a memory-aware placer's error when the graph
// cannot be placed within the devices' memory.
var ErrDoesNotFit = errors.New("graph does not fit the cluster's memory")

// ErrBadOption is wrapped by errors for a missing or malformed placer option.
var ErrBadOption = errors.New("bad placer option")
