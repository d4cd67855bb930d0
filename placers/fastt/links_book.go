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
// transfer occupies each link of its route for its stage of the route
// (spans), so that two transfers on one link take turns rather than
// overlap. The transfer time is the communication model's (the
// regression of the pair); the book only decides when each stage starts.
type linkBook struct {
	p     *problem
	lines []graphalg.Timeline // by link ID
	// arrived[v] lists (device, arrival time) of op v's output on other
	// devices.
	arrived [][]arrival
	buf     []span
}

type arrival struct {
	dev int
	at  float64
}

func newLinkBook(p *problem) *linkBook {
	return &linkBook{p: p, lines: make([]graphalg.Timeline, len(p.cm.c.Topology.Links)),
		arrived: make([][]arrival, p.d.Len())}
}

// span is one link of a transfer's route and when the transfer keeps it
// busy, from off to off+dur after the start of its stage.
type span struct {
	link     links.LinkID
	off, dur float64
	// stage counts the store-and-forward endpoints the route passed
	// before this link
	stage int
}

// spans is how a transfer of bytes over route keeps its links busy, as
// the communication model times it (dur in all): a route is played in
// stages, each from a store-and-forward endpoint (the source GPU, a host
// CPU whose memory stages the tensor) to the next, and within a stage
// the links forward the tensor as it streams in (switches, NICs). On
// DGX-1 two GPUs that NVLink does not join exchange tensors through
// their PCIe switches and the two sockets' memory (PCIe, UPI, PCIe:
// three stages); each link is busy for its own stage, not for the whole
// transfer, so three such transfers can be in flight at once on a path
// (section 4: the communication model captures "available bandwidth and
// potential congestion along each device-device path"). The stages'
// shares of dur are the topology's (links.Topology.TransferTime, the
// uncontended time of each hop); dur itself is the regression's. The
// result is valid until the next call.
func (b *linkBook) spans(route links.Route, bytes int64, dur float64) []span {
	top := b.p.cm.c.Topology
	b.buf = b.buf[:0]
	var start, finish, stageAt float64 // of the current hop; start of its stage
	stage := 0
	for i, lid := range route {
		l := top.Links[lid]
		if i > 0 && !top.Endpoints[l.From].StoreAndForward() {
			// cut-through (links.Topology.TransferTime): the head arrives
			// after the previous hop's latency
			s := start + top.Links[route[i-1]].Latency
			start, finish = s, math.Max(s+l.HopTime(bytes), finish+l.Latency)
		} else {
			if i > 0 {
				stage++
			}
			start = finish
			stageAt = start
			finish = start + l.HopTime(bytes)
		}
		b.buf = append(b.buf, span{link: lid, off: start - stageAt, dur: finish - start, stage: stage})
	}
	// stage starts in absolute terms, then the scale of the regression
	scale := 0.0
	if finish > 0 {
		scale = dur / finish
	}
	for i := range b.buf {
		b.buf[i].off *= scale
		b.buf[i].dur *= scale
	}
	return b.buf
}

// transfer is the time a tensor of bytes sent from device src at ready
// arrives on dst, its route's links each taken first come, first served,
// as the engine's link queues serve them: each stage (spans) starts when
// the previous one has ended and every link of it is free, after what is
// booked on them already (no insertion into an earlier gap; with
// insertion DPOS's estimate was 15 % below the simulated step of GNMT on
// 2 GPUs, without it 4.7 % above). With commit the links are booked.
func (b *linkBook) transfer(src, dst int, bytes int64, ready, dur float64, commit bool) float64 {
	sp := b.spans(b.p.cm.c.Route(src, dst), bytes, dur)
	t := ready
	for i := 0; i < len(sp); {
		j := i
		st, end := t, t
		for ; j < len(sp) && sp[j].stage == sp[i].stage; j++ {
			st = max(st, b.lines[sp[j].link].End()-sp[j].off)
		}
		for k := i; k < j; k++ {
			s := max(st+sp[k].off, b.lines[sp[k].link].End())
			if commit {
				b.lines[sp[k].link].Reserve(s, sp[k].dur)
			}
			end = max(end, s+sp[k].dur)
		}
		t, i = end, j
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
