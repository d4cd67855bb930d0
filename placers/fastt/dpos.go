package fastt

import (
	"context"
	"math"

	"placesim/engine"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

// schedule is the outcome of DPOS on a graph: a device and a start and
// finish time per op, the critical path it placed on its own devices, and
// FT(o_exit), the estimated step time.
type schedule struct {
	w     *work
	times []float64 // the computation model of w (CostModel.opTimes)
	s     *graphalg.Schedule
	cp    []int
	cpDev []int // device of each op on cp
	// order is the order the ops were scheduled in (decreasing rank).
	order  []int
	finish float64
}

// problem is the scheduling view of a work graph under a cost model.
type problem struct {
	w     *work
	cm    *CostModel
	times []float64
	d     *graphalg.DAG
	t     *graphalg.Targets
	topo  []int
	// pin, when set, forces op v onto device pin[v] (>= 0): the start
	// strategy's placement of the replicas (pinnedProblem).
	pin []int
}

func newProblem(w *work, cm *CostModel) (*problem, error) {
	p := &problem{w: w, cm: cm, times: cm.opTimes(w), d: graphalg.NewDAG(w.g)}
	var err error
	if p.t, err = graphalg.NewTargets(w.g, cm.c); err != nil {
		return nil, err
	}
	if p.topo, err = graphalg.KahnOrder(p.d); err != nil {
		return nil, err
	}
	return p, nil
}

// dur is op v's computation time on device dev.
func (p *problem) dur(v, dev int) float64 { return p.times[v*len(p.cm.kinds)+p.cm.kind(dev)] }

// comm is the time of dependency k from device src to dst.
func (p *problem) comm(k, src, dst int) float64 { return p.cm.Transfer(src, dst, p.d.BytesAt(k)) }

// commDevices are the devices between which c_ij is maximised: the
// accelerators, or every device when there are fewer than two.
func (p *problem) commDevices() []int {
	if len(p.t.Acc) >= 2 {
		return p.t.Acc
	}
	all := make([]int, len(p.cm.c.Devices))
	for i := range all {
		all[i] = i
	}
	return all
}

// maxCosts are the weights of DPOS's rank (Algorithm 1, line 3): w_i the
// largest computation time of op i over the devices it may run on, c_ij
// the largest transfer time of the dependency over device pairs.
func (p *problem) maxCosts() *graphalg.Costs {
	c := &graphalg.Costs{W: make([]float64, p.d.Len()), Comm: make([]float64, p.d.NumDeps())}
	for v := range c.W {
		m := 0.0
		for _, dev := range p.t.Of(v) {
			if x := p.dur(v, dev); !math.IsInf(x, 1) && x > m {
				m = x
			}
		}
		c.W[v] = m
	}
	devs := p.commDevices()
	type line struct{ a, b float64 }
	var lines []line
	seen := map[line]bool{} // pairs with the same link kinds share a line
	for _, x := range devs {
		for _, y := range devs {
			if x != y {
				a, b := p.cm.Line(x, y)
				if l := (line{a, b}); !seen[l] {
					seen[l] = true
					lines = append(lines, l)
				}
			}
		}
	}
	for k := range c.Comm {
		bytes := float64(p.d.BytesAt(k))
		m := 0.0
		for _, l := range lines {
			m = math.Max(m, l.a+l.b*bytes)
		}
		c.Comm[k] = m
	}
	return c
}

// criticalPath follows FastT's rule (section 5.1): start at the entry op
// with the largest rank, then repeatedly take the successor with the
// largest rank (ties: the smaller op ID).
func criticalPath(d *graphalg.DAG, rank []float64) []int {
	v := -1
	for u := 0; u < d.Len(); u++ {
		if d.InDegree(u) == 0 && (v < 0 || rank[u] > rank[v]) {
			v = u
		}
	}
	var path []int
	for v >= 0 {
		path = append(path, v)
		next := -1
		for _, s := range d.Succ(v) {
			if next < 0 || rank[s] > rank[next] || (rank[s] == rank[next] && int(s) < next) {
				next = int(s)
			}
		}
		v = next
	}
	return path
}

// dpos is Algorithm 1 (Device Placement and Operation Sequencing) on the
// problem: ranks rank_u with the largest costs (line 3-4), the critical
// path on critical-path devices (line 5), then every op in decreasing rank
// (line 6-8): a critical-path op on its device, any other op on the device
// of earliest finish time with insertion into idle slots, a device whose
// memory the op's colocation unit would overflow excluded (line 12-19).
// Each op starts at its earliest start time on its device; FT(o_exit) is
// the latest finish (line 24). When an op fits no device the error wraps
// placers.ErrDoesNotFit.
func dpos(ctx context.Context, p *problem) (*schedule, error) {
	costs := p.maxCosts()
	rank := graphalg.BLevel(p.d, costs, p.topo)
	cp := criticalPath(p.d, rank)
	mem, reserve := memory(p.w.g)
	b := graphalg.NewBookWith(p.w.g, p.cm.c, p.t, mem)
	for i := range b.Free {
		b.Free[i] -= reserve
	}
	s := graphalg.NewSchedule(p.d, len(p.cm.c.Devices), p.dur, p.comm)
	lb := newLinkBook(p)
	out := &schedule{w: p.w, times: p.times, s: s, cp: cp}
	cpDev := make([]int, p.d.Len())
	for i := range cpDev {
		cpDev[i] = -1
	}
	if p.pin != nil {
		// the replicas stay where the start strategy put them; the
		// critical path is not moved
		copy(cpDev, p.pin)
		out.cpDev = make([]int, len(cp))
		for i, v := range cp {
			out.cpDev[i] = p.pin[v]
			if p.pin[v] >= 0 {
				b.Place(v, p.pin[v])
			}
		}
	} else {
		out.cpDev = criticalDevices(p, b, cp)
		for i, v := range cp {
			cpDev[v] = out.cpDev[i]
		}
	}
	out.order = graphalg.DecreasingRank(rank, p.topo)
	for i, v := range out.order {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		bd := cpDev[v]
		if bd < 0 {
			bf := math.Inf(1)
			for _, dev := range b.Candidates(v) {
				x := p.dur(v, dev)
				if math.IsInf(x, 1) || !b.Fits(v, dev) {
					continue // EFT = +Inf (line 13-14)
				}
				st := lb.est(s, v, dev)
				if f := st + x; f < bf {
					bd, bf = dev, f
				}
			}
			if bd < 0 {
				return nil, b.NoFit(v)
			}
		}
		lb.assign(s, v, bd)
		b.Place(v, bd)
	}
	out.finish = s.Makespan()
	return out, nil
}

// criticalDevices chooses the critical-path devices (Algorithm 1, line 5;
// section 5.1): for each unused device, place as many of the remaining
// critical-path ops as fit its memory, in path order, and take the device
// where their average computation time is smallest (ties: more ops, then
// the lower index); when its memory is full, continue with another device.
// The chosen ops' colocation units are anchored in b. It returns the
// device of each op of cp, -1 for ops left to the earliest-finish rule
// (CPU-only ops, ops that fit no unused device).
func criticalDevices(p *problem, b *graphalg.Book, cp []int) []int {
	dev := make([]int, len(cp))
	for i := range dev {
		dev[i] = -1
	}
	rest := make([]int, 0, len(cp)) // positions in cp still to assign
	for i, v := range cp {
		if !p.t.NeedsCPU(v) {
			rest = append(rest, i)
		}
	}
	used := map[int]bool{}
	units := map[int]bool{}
	for len(rest) > 0 {
		best, bestN, bestAvg := -1, 0, math.Inf(1)
		for _, d := range p.t.Acc {
			if used[d] {
				continue
			}
			clear(units)
			free, n, sum := b.Free[d], 0, 0.0
			for _, i := range rest {
				v := cp[i]
				if f := b.Forced(v); f >= 0 && f != d {
					break
				}
				x := p.dur(v, d)
				if math.IsInf(x, 1) {
					break
				}
				u := p.t.UnitOf[v]
				if !units[u] {
					if c := b.Charge(v); c > free {
						break
					} else {
						free -= c
					}
					units[u] = true
				}
				n++
				sum += x
			}
			if n == 0 {
				continue
			}
			avg := sum / float64(n)
			if best < 0 || avg < bestAvg || (avg == bestAvg && n > bestN) {
				best, bestN, bestAvg = d, n, avg
			}
		}
		if best < 0 {
			break
		}
		for _, i := range rest[:bestN] {
			dev[i] = best
			b.Place(cp[i], best)
		}
		rest = rest[bestN:]
		used[best] = true
	}
	return dev
}

// plan turns the schedule into an engine plan for its graph: each op's
// device and, with order enforcement (section 6.1), a priority that makes
// each device run its ready ops in the order of their scheduled start
// (the execution list A of Algorithm 1, line 23).
// The plan carries the schedule's graph unless it is orig.
func (sc *schedule) plan(enforce bool, orig *workloads.Graph) *engine.Plan {
	p := sc.s.Plan()
	if !enforce {
		p.Priority = nil
	}
	if sc.w.g != orig {
		p.Graph = sc.w.g
	}
	return p
}
