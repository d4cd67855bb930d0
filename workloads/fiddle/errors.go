package fiddle

import "errors"

// ErrFormat is wrapped by every error about a malformed msr-fiddle file.
var ErrFormat = errors.New("bad msr-fiddle file")
