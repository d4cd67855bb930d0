package collectives

import "errors"

// ErrBadGroup is returned for a group that names no device, a device out
// of range or the same device twice.
var ErrBadGroup = errors.New("bad collective group")
