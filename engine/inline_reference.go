//go:build enginereference

package engine

// handInlined is false in the enginereference build: the engine calls
// the originals of its hand-inlined copies (see inline.go).
const handInlined = false
