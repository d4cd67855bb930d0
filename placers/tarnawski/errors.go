package tarnawski

import "errors"

// ErrTooManyIdeals is returned when a graph has more ideals than the DP's
// limit (option max-memory-mib).
var ErrTooManyIdeals = errors.New("too many ideals for the DP")
