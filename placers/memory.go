package placers

// MemoryAware is implemented by placers that keep device memory: their
// plan fits every device's memory as the engine plays it, or Place fails
// with an error wrapping ErrDoesNotFit that gives the numbers (the bytes
// asked and the memory free). A placer whose memory-awareness depends on
// its options (a best-effort rule that overfills a device when nothing
// fits) answers for the options it was made with. The conformance suite
// (placertest) holds a placer that answers true to it.
type MemoryAware interface {
	// MemoryAware reports whether the placer keeps device memory.
	MemoryAware() bool
}

// IsMemoryAware reports whether p declares itself memory-aware (false for
// a placer that does not implement MemoryAware).
func IsMemoryAware(p Placer) bool {
	m, ok := p.(MemoryAware)
	return ok && m.MemoryAware()
}
