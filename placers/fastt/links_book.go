package fastt

import (
	"math"

	"placesim/links"
	"placesim/placers/graphalg"
)

// linkBook is what DPOS knows of the tensors in flight while it schedules
// (section 4: the communication model captures "available bandwidth and
// potential congestion along each device-device path"): a tensor is sent
// to a device once, however many of its consumers run there (TensorFlow's
// Send/Recv pair per tensor and device, as the engine plays it), and a
// transfer occupies every link of its route for its modelled time, so
// that two transfers on one link take turns rather than overlap. The
// transfer time is the communication model's (the regression of the
// pair); the book only decides when a transfer can start.
type linkBook struct {
	p     *problem
	lines []graphalg.Timeline // by link ID
	// arrived[v] lists (device, arrival time) of op v's output on other
	// devices.
	arrived [][]arrival
}

type arrival struct {
	dev int
	at  float64
}

func newLinkBook(p *problem) *linkBook {
	return &linkBook{p: p, lines: make([]graphalg.Timeline, len(p.cm.c.Topology.Links)),
		arrived: make([][]arrival, p.d.Len())}
}

// slot is the earliest time at or after ready when every link of route
// is free for dur, after what is booked on them already: a link sends its
// transfers first come, first served, as the engine's link queues do (no
// insertion into an earlier gap; with insertion DPOS's estimate was 15 %
// below the simulated step of GNMT on 2 GPUs, without it 4.7 % above).
// On the 8 GPUs of one DGX-1 this books GNMT's transfers too late (FT 39 %
// above the simulated step); a queue by send time (wait for the transfers
// sent earlier, then the first gap) was tried: GNMT 8 GPUs +7.4 %, but
// 2 GPUs -15.3 % and VGG-19 8 GPUs +13 %.
func (b *linkBook) slot(route links.Route, ready, dur float64) float64 {
	t := ready
	for iter := 0; iter < 64; iter++ {
		moved := false
		for _, l := range route {
			if s := b.lines[l].EarliestStart(t, dur, false); s > t {
				t, moved = s, true
			}
		}
		if !moved {
			return t
		}
	}
	return t
}

// ready is the time every input of v can be on device dev: a producer on
// dev at its finish, one already sent there at its arrival, another at
// the end of a transfer in the first slot its route has (each input on
// its own: the inputs of one op do not wait for each other here). With
// commit, the transfers are booked, in input order, and the time accounts
// for inputs that share a link.
func (b *linkBook) ready(s *graphalg.Schedule, v, dev int, commit bool) float64 {
	lo, hi := b.p.d.PredRange(v)
	t := 0.0
	for k := lo; k < hi; k++ {
		u := b.p.d.PredAt(k)
		du := s.Dev[u]
		if du < 0 {
			return math.Inf(1)
		}
		f := s.Finish[u]
		if du != dev {
			sent := false
			for _, a := range b.arrived[u] {
				if a.dev == dev {
					f, sent = a.at, true
					break
				}
			}
			if !sent {
				dur := b.p.comm(k, du, dev)
				route := b.p.cm.c.Route(du, dev)
				st := b.slot(route, f, dur)
				f = st + dur
				if commit {
					for _, l := range route {
						b.lines[l].Reserve(st, dur)
					}
					b.arrived[u] = append(b.arrived[u], arrival{dev, f})
				}
			}
		}
		t = max(t, f)
	}
	return t
}

// est is v's earliest start on dev with insertion (Algorithm 1, line 13).
func (b *linkBook) est(s *graphalg.Schedule, v, dev int) float64 {
	return s.Lines[dev].EarliestStart(b.ready(s, v, dev, false), b.p.dur(v, dev), true)
}

// assign books v's input transfers to dev and places v at its earliest
// start there.
func (b *linkBook) assign(s *graphalg.Schedule, v, dev int) {
	r := b.ready(s, v, dev, true)
	s.Assign(v, dev, s.Lines[dev].EarliestStart(r, b.p.dur(v, dev), true))
}
