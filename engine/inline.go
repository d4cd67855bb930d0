package engine

// The engine's hot loops hold hand-inlined copies of a few small methods
// (eventQueue.next in sim.run, tryStart in opEnd and deliver, route's fast
// path in wire): the Go compiler does not inline them, and a call per
// event or per node is measurable (see the README's performance section).
// Each copy sits in an `if handInlined { copy } else { original }`:
// handInlined is a constant, so the default build compiles the copy alone
// and the test build with the tag enginereference compiles the originals
// alone. TestHandInlinedCopiesMatchOriginals runs the engine's tests in
// that build, so that a copy that drifts from its original fails the
// golden, pipeline and data-parallel tests there.
