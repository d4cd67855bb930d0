package graphalg

import (
	"math"

	"placesim/devices"
	"placesim/engine"
)

// Schedule is the state of a list scheduler: which device each placed op
// runs on, when it starts and finishes, and each device's timeline. Devices
// are the cluster's device indices. Dur and Comm give the costs the
// scheduler believes (estimates, never the engine's true costs).
type Schedule struct {
	DAG *DAG
	// Dur is op v's time on device d.
	Dur func(v, d int) float64
	// Comm is the time dependency k (a predecessor position of DAG) takes
	// from device src to device dst, src != dst.
	Comm func(k, src, dst int) float64
	// Dev is each op's device, -1 while unplaced.
	Dev []int
	// Start and Finish are each placed op's scheduled times.
	Start, Finish []float64
	// Lines are the devices' timelines.
	Lines []Timeline
	// placed counts the placed ops.
	placed int
}

// NewSchedule returns an empty schedule for nDev devices.
func NewSchedule(d *DAG, nDev int, dur func(v, d int) float64, comm func(k, src, dst int) float64) *Schedule {
	s := &Schedule{DAG: d, Dur: dur, Comm: comm, Dev: make([]int, d.Len()),
		Start: make([]float64, d.Len()), Finish: make([]float64, d.Len()), Lines: make([]Timeline, nDev)}
	for i := range s.Dev {
		s.Dev[i] = -1
	}
	return s
}

// EstimateSchedule returns an empty schedule whose costs are the
// estimates: op times per device and transfer times per device pair for
// each dependency's bytes.
func EstimateSchedule(d *DAG, est *devices.Estimates) *Schedule {
	return NewSchedule(d, len(est.Cluster.Devices), est.OpTime, func(k, src, dst int) float64 {
		return est.TransferTime(src, dst, d.BytesAt(k))
	})
}

// FixedComm returns a Comm function with one time per dependency whatever
// the devices (the classic scheduling model; HEFT's example).
func FixedComm(comm []float64) func(k, src, dst int) float64 {
	return func(k, _, _ int) float64 { return comm[k] }
}

// DataReady is the time all of v's inputs can be on device d: the latest
// finish of its predecessors plus the communication time of those on
// another device (Celeritas eq. 7, pre_t). An unplaced predecessor makes
// it +Inf.
func (s *Schedule) DataReady(v, d int) float64 {
	lo, hi := s.DAG.PredRange(v)
	t := 0.0
	for k := lo; k < hi; k++ {
		p := s.DAG.PredAt(k)
		dp := s.Dev[p]
		if dp < 0 {
			return math.Inf(1)
		}
		f := s.Finish[p]
		if dp != d {
			f += s.Comm(k, dp, d)
		}
		if f > t {
			t = f
		}
	}
	return t
}

// EST is the earliest start time of v on d: the data-ready time, then the
// first idle slot long enough for v (with insertion) or the device's last
// finish (without).
func (s *Schedule) EST(v, d int, insertion bool) float64 {
	return s.Lines[d].EarliestStart(s.DataReady(v, d), s.Dur(v, d), insertion)
}

// Assign places v on d starting at start and reserves its slot.
func (s *Schedule) Assign(v, d int, start float64) {
	dur := s.Dur(v, d)
	s.Dev[v] = d
	s.Start[v] = start
	s.Finish[v] = start + dur
	s.Lines[d].Reserve(start, dur)
	s.placed++
}

// Placed is the number of placed ops.
func (s *Schedule) Placed() int { return s.placed }

// Makespan is the latest finish time of the placed ops.
func (s *Schedule) Makespan() float64 {
	m := 0.0
	for v, d := range s.Dev {
		if d >= 0 && s.Finish[v] > m {
			m = s.Finish[v]
		}
	}
	return m
}

// Plan turns a complete schedule into an engine plan: each op's device,
// and a priority that makes a device run its ready ops in scheduled start
// order (priority = -start).
func (s *Schedule) Plan() *engine.Plan {
	p := &engine.Plan{Device: append([]int(nil), s.Dev...), Priority: make([]float64, len(s.Dev))}
	for v := range p.Priority {
		p.Priority[v] = -s.Start[v]
	}
	return p
}
