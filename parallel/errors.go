package parallel

import "errors"

// ErrLayout is wrapped by every error of Parse and Validate, so callers
// can tell a bad layout from other failures.
var ErrLayout = errors.New("parallel layout")
