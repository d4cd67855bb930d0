package native

import "errors"

// ErrFormat is wrapped by every error about the content of a native
// workload file (syntax, schema, ranges, references); errors opening or
// reading the file wrap the underlying I/O error instead.
var ErrFormat = errors.New("malformed native workload")

// ErrUnwritable is wrapped by Write's errors for a graph the format cannot
// hold (an empty or duplicate op name, a dangling edge, a non-finite
// number, an unknown role, text that is not UTF-8).
var ErrUnwritable = errors.New("graph cannot be written in the native format")
