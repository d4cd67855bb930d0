package engine

// ledger accounts one device's memory.
type ledger struct {
	used, peak, capacity int64
	// watch is the level above which alloc takes its slow path: the
	// peak, or -1 with a trace (every allocation is sampled)
	watch   int64
	samples []MemSample // only with Options.Trace
}

// allocKind says what an allocation is for (in an OOM report).
type allocKind uint8

const (
	allocParams allocKind = iota
	allocOutput
	allocTemp
	allocRecv
	allocChunk
	allocStash
)

func (k allocKind) String() string {
	return [...]string{"parameters", "output", "temp", "recv", "all-reduce chunk", "weight stash"}[k]
}

// alloc adds bytes on device d for node op, recording the first OOM.
func (s *sim) alloc(d int32, bytes int64, op int32, what allocKind) {
	if s.mem[d].add(bytes) {
		s.allocSlow(d, bytes, op, what)
	}
}

// add adds bytes to the level and reports whether the caller must take
// alloc's slow path (allocSlow): the hot paths call it inline.
func (m *ledger) add(bytes int64) bool {
	m.used += bytes
	return m.used > m.watch
}

// allocSlow is alloc's slow path: a new peak (a first OOM when it is above
// the capacity: the level that first exceeds the capacity is a new peak)
// and the trace's sample.
func (s *sim) allocSlow(d int32, bytes int64, op int32, what allocKind) {
	m := &s.mem[d]
	if m.used > m.peak {
		m.peak = m.used
		if m.used > m.capacity && s.res.OOM == nil {
			dev := s.c.Devices[d]
			s.res.OOM = &OOM{Device: int(d), DeviceName: dev.Name, Op: int(s.un.id(op).op), OpName: s.un.name(op),
				Time: s.now, What: what.String(), Requested: bytes, InUse: m.used - bytes, Capacity: m.capacity}
		}
	}
	if s.trace != nil {
		if bytes != 0 {
			m.sample(s.now)
		}
		return
	}
	m.watch = m.peak
}

// free releases bytes on device d (the peak, and so the watch, stay). It
// is not inlined, so that release is where it is called for every input.
//
//go:noinline
func (s *sim) free(d int32, bytes int64) {
	m := &s.mem[d]
	m.used -= bytes
	if s.trace != nil && bytes != 0 {
		m.sample(s.now)
	}
}

// release drops one reader of buffer b (a node's output or a transfer's
// copy); the last frees it.
func (s *sim) release(b *buffer) {
	if b.readers--; b.readers == 0 {
		s.free(b.dev, b.bytes)
	}
}

// sample records the level from now on, merging changes at the same time.
func (m *ledger) sample(t float64) {
	if n := len(m.samples); n > 0 && m.samples[n-1].Time == t {
		m.samples[n-1].Bytes = m.used
		return
	}
	m.samples = append(m.samples, MemSample{Time: t, Bytes: m.used})
}
