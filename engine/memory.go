package engine

// ledger accounts one device's memory.
type ledger struct {
	used, peak, capacity int64
	samples              []MemSample // only with Options.Trace
}

// alloc adds bytes on device d for node op, recording the first OOM.
func (s *sim) alloc(d int32, bytes int64, op int32, what string) {
	if bytes == 0 {
		return
	}
	m := &s.mem[d]
	m.used += bytes
	if m.used > m.peak {
		m.peak = m.used
	}
	if m.used > m.capacity && s.res.OOM == nil {
		dev := s.c.Devices[d]
		s.res.OOM = &OOM{Device: int(d), DeviceName: dev.Name, Op: int(s.un.id(op).op), OpName: s.un.name(op),
			Time: s.now, What: what, Requested: bytes, InUse: m.used - bytes, Capacity: m.capacity}
	}
	if s.opt.Trace {
		m.sample(s.now)
	}
}

// free releases bytes on device d.
func (s *sim) free(d int32, bytes int64) {
	if bytes == 0 {
		return
	}
	m := &s.mem[d]
	m.used -= bytes
	if s.opt.Trace {
		m.sample(s.now)
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
