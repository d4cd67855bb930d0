package fastt

import (
	"math"

	"placesim/placers/graphalg"
)

// linkBook is what DPOS knows of the tensors in flight while it schedules
// (section 4: the communication model captures "available bandwidth and
// potential congestion along each device-device path"): a tensor is sent
// to a device once, however many of its consumers run there (TensorFlow's
// Send/Recv pair per tensor and device, as the engine plays it), and a
// transfer occupies each link of its route for its own hop (transfer),
// so that two transfers on one link take turns rather than overlap. The
// transfer time is the communication model's (the regression of the
// pair); the book only decides when each hop starts.
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

// transfer is the time a tensor of bytes sent from device src at ready
// arrives on dst, each link of its route taken first come, first served
// after what is booked on it already, hop by hop as the engine's link
// queues play a route: a hop out of a store-and-forward endpoint (the
// source GPU, a host CPU whose memory stages the tensor) starts when the
// previous hop has ended; a hop out of a cut-through endpoint (a switch,
// a NIC) starts when the head arrives, one latency after the previous
// hop started, and ends no earlier than the previous hop plus its
// latency (links.Topology.TransferTime). Each link is busy for its own
// hop, not for the whole transfer: on DGX-1 two GPUs that NVLink does
// not join exchange tensors through their PCIe switches and the two
// sockets' memory (PCIe, UPI, PCIe), and three such transfers can be in
// flight at once on that path (section 4: the communication model
// captures "available bandwidth and potential congestion along each
// device-device path"). The hops take the topology's uncontended times
// scaled so that the route takes dur, the regression's time of the pair,
// in all. No insertion into an earlier gap: with insertion DPOS's
// estimate was 15 % below the simulated step of GNMT on 2 GPUs, without
// it 4.6 % above; a queue by arrival (wait for the transfers that reached
// the link earlier, then the first gap) was 15 % below on 2 GPUs and 23 %
// below on 8. With commit the links are booked.
func (b *linkBook) transfer(src, dst int, bytes int64, ready, dur float64, commit bool) float64 {
	top := b.p.cm.c.Topology
	route := b.p.cm.c.Route(src, dst)
	scale := 0.0
	if u := top.TransferTime(route, bytes); u > 0 {
		scale = dur / u
	}
	head, finish := ready, ready
	for i, lid := range route {
		l := top.Links[lid]
		st := max(head, b.lines[lid].End())
		f := st + l.HopTime(bytes)*scale
		if i > 0 && !top.Endpoints[l.From].StoreAndForward() {
			f = max(f, finish+l.Latency*scale)
		}
		if commit {
			b.lines[lid].Reserve(st, f-st)
		}
		finish = f
		if i+1 < len(route) && !top.Endpoints[top.Links[route[i+1]].From].StoreAndForward() {
			head = st + l.Latency*scale
		} else {
			head = f
		}
	}
	return finish
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
				f = b.transfer(du, dev, b.p.d.BytesAt(k), f, b.p.comm(k, du, dev), commit)
				if commit {
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
