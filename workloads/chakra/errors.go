package chakra

import "errors"

// ErrFormat is wrapped by every error about a malformed trace file: a
// truncated stream, a wrong message length, an undecodable message, a
// duplicate node, a dependency cycle, too many nodes.
var ErrFormat = errors.New("bad execution trace")

// ErrStrict is wrapped by the error for what is only a warning without
// strict=true: an unknown node type, attribute, field or schema version.
var ErrStrict = errors.New("trace has what the reader cannot use (strict=true)")

// ErrRank is wrapped by the error for a trace that references a rank or a
// process group it does not contain.
var ErrRank = errors.New("trace references a rank or process group it does not contain")
