//go:build !enginereference

package engine

// handInlined selects the hand-inlined copies of the hot methods (see
// inline.go); the enginereference build plays the originals.
const handInlined = true
