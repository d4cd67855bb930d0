package links

import "errors"

// ErrNoRoute is returned when two endpoints are not connected.
var ErrNoRoute = errors.New("no route")

// ErrUnknownKind is returned for a link kind name that is not in Kinds.
var ErrUnknownKind = errors.New("unknown link kind")
