package celeritas

import (
	"context"
	"math"

	"placesim/engine"
	"placesim/placers/graphalg"
)

// adjustingPlacement is Celeritas' Adjusting Placement (section 5.2,
// Algorithm 2) on p's graph, in practice the coarse graph of operation
// fusion. The ops are taken in CPD-TOPO order. For op v_i, with d_k the
// device of v_{i-1}:
//
//   - back_cost = max over successors s of c_{i,s} (eq. 8), with mean
//     communication times;
//   - on each candidate device d, EST(d) = +Inf when the device's free
//     memory is below v_i's (line 7-8), else max(pre_t, d_ava) where pre_t
//     is the latest arrival of v_i's inputs, a predecessor's finish plus
//     its communication time when on another device (eq. 7), and d_ava
//     the start of the first idle slot of d after pre_t long enough for
//     v_i (insertion, line 30);
//   - v_i goes to the device d_1 of smallest EST if EST(d_k) - EST(d_1) >
//     back_cost (eq. 9), else to d_k while EST(d_k) is finite, else, every
//     device being full, to the device with the least memory in use (the
//     best-effort rule; the text says "lowest memory usage", which the
//     argmin of available memory in line 18 contradicts: we follow the
//     text) or, with bestEffort false, Place fails with
//     placers.ErrDoesNotFit;
//   - the device's memory and timeline are updated (lines 19-20).
//
// The first op has no v_{i-1}: d_k is its first candidate device. An op
// whose colocation unit is placed already has its unit's device as only
// candidate. The schedule's start times become the plan's priorities.
func adjustingPlacement(ctx context.Context, p *graphalg.Problem, bestEffort bool, st *stats) (*engine.Plan, error) {
	order, err := p.CPDOrder()
	if err != nil {
		return nil, err
	}
	d := p.DAG
	s := p.Schedule()
	b := p.Book()
	est := make([]float64, len(p.Req.Cluster.Devices))
	prev := -1
	for i, v := range order {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		back := 0.0
		lo, hi := d.SuccRange(v)
		for j := lo; j < hi; j++ {
			back = math.Max(back, p.Costs.Comm[d.DepOfSucc(j)])
		}
		cands := b.Candidates(v)
		d1 := -1
		for _, dev := range cands {
			if b.Fits(v, dev) {
				est[dev] = s.EST(v, dev, true)
			} else {
				est[dev] = math.Inf(1)
			}
			if d1 < 0 || est[dev] < est[d1] {
				d1 = dev
			}
		}
		dk := prev
		if dk < 0 || !has(cands, dk) {
			dk = cands[0]
		}
		var dev int
		st.ops++
		switch {
		case est[dk]-est[d1] > back: // eq. 9 (+Inf when d_k is full)
			dev = d1
			if d1 != dk {
				if math.IsInf(est[dk], 1) {
					st.full++
				} else {
					st.moved++
				}
			}
		case !math.IsInf(est[dk], 1):
			dev = dk
		case bestEffort:
			dev = b.LeastUsed(cands)
			st.overfilled++
		default:
			return nil, b.NoFit(v)
		}
		start := est[dev]
		if math.IsInf(start, 1) {
			start = s.EST(v, dev, true)
		}
		s.Assign(v, dev, start)
		b.Place(v, dev)
		prev = dev
	}
	return s.Plan(), nil
}

// stats counts Adjusting Placement's and Order-Place's decisions, for the
// report: ops placed, ops moved off d_k by eq. 9 while d_k had room, ops
// moved because d_k was full, and ops put on a full device by the
// best-effort rule.
type stats struct{ ops, moved, full, overfilled int }

func has(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
