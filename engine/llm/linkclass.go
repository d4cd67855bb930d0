package llm

import (
	"fmt"
	"math"
	"sort"

	"placesim/devices"
	"placesim/workloads/zoo"
)

// LinkClass is the outermost tier of the network a transfer crosses.
type LinkClass int

// The link classes, innermost first.
const (
	// ScaleUp: NVLink (or Infinity Fabric, or PCIe where there is no
	// scale-up link) inside one NVLink domain (NCCL's node).
	ScaleUp LinkClass = iota
	// Adapters: the nodes' network adapters, every node under one leaf
	// switch (or one rail's leaf).
	Adapters
	// LeafUplinks: the uplinks of leaf switches to the spine, where an
	// oversubscribed fat-tree blocks.
	LeafUplinks
	numLinkClass
)

// LinkClasses lists the classes in order.
func LinkClasses() []LinkClass { return []LinkClass{ScaleUp, Adapters, LeafUplinks} }

// String is the name the text output uses.
func (c LinkClass) String() string {
	return [...]string{"NVLink", "adapters", "leaf uplinks"}[c]
}

// Key is the name the JSON output uses.
func (c LinkClass) Key() string {
	return [...]string{"nvlink", "adapters", "leafUplinks"}[c]
}

// LinkExposure is where a result's exposed data- and pipeline-parallel
// communication went: the slowest rank's exposed DP and PP time
// (Result.Exposed) split over the link classes their transfers cross.
type LinkExposure struct {
	// Rank is the pipeline rank whose exposure Result.Exposed reports.
	Rank int
	// DP and PP are the exposed seconds per class (LinkClasses order);
	// they sum to Result.Exposed[CommDP] and [CommPP].
	DP, PP [numLinkClass]float64
	// DPClass is the class of the rank's data-parallel groups, PPFrom
	// and PPTo of its sends from the previous and to the next stage.
	DPClass      LinkClass
	PPFrom, PPTo LinkClass
	// Exact reports that PP was found transfer by transfer; when false
	// (the full mode's slowest gangs of neighbouring ranks differ) it is
	// split in proportion to the incoming transfer time of each class.
	Exact bool
}

// Map is e as {"DP": {"nvlink": s, ...}, "PP": {...}} for JSON.
func (e *LinkExposure) Map() map[string]map[string]float64 {
	out := map[string]map[string]float64{"DP": {}, "PP": {}}
	for _, c := range LinkClasses() {
		out["DP"][c.Key()] = e.DP[c]
		out["PP"][c.Key()] = e.PP[c]
	}
	return out
}

// groupsClass is the outermost class the traffic of any of groups
// crosses: one node, several nodes under one leaf, or nodes under
// different leaves (devices.CommView.SpansLeaves, as collectives charges
// leaf uplinks).
func groupsClass(c *devices.Cluster, groups [][]int) LinkClass {
	cv := c.Comm()
	cls := ScaleUp
	for _, g := range groups {
		seen := map[int32]bool{}
		var nodes []int32
		for _, d := range g {
			if n := cv.Node[d]; !seen[n] {
				seen[n] = true
				nodes = append(nodes, n)
			}
		}
		if len(nodes) < 2 {
			continue
		}
		sort.Slice(nodes, func(i, j int) bool { return nodes[i] < nodes[j] })
		cls = max(cls, Adapters)
		for _, d := range g {
			if lf := cv.Leaf[d]; lf >= 0 && cv.SpansLeaves(lf, nodes) {
				return LeafUplinks
			}
		}
	}
	return cls
}

// ExposedByLink splits r's exposed data- and pipeline-parallel time
// (the slowest rank's, Result.Exposed) over the link classes: DP by the
// class of the rank's data-parallel groups (dense and expert, in
// proportion to their collective times when their classes differ), PP
// wait by wait, each charged to the class of the send it waited for
// (the previous stage's activation or the next stage's gradient), found
// from the rank's spans and its neighbours' sends as Simulate recorded
// them.
func (r *Result) ExposedByLink(j *Job) (*LinkExposure, error) {
	if len(r.Ranks) == 0 {
		return nil, fmt.Errorf("%w: exposure by link class of a result with no ranks", ErrJob)
	}
	P := len(r.Ranks)
	e := &LinkExposure{Rank: -1}
	for i := range r.Ranks {
		if r.Ranks[i].Exposed == r.Exposed {
			e.Rank = i
			break
		}
	}
	if e.Rank < 0 {
		return nil, fmt.Errorf("%w: no rank's exposure matches the result's", ErrJob)
	}
	rk := e.Rank
	rr := &r.Ranks[rk]
	c := j.Cluster

	// data parallelism: the dense groups, the experts' where they differ
	e.DPClass = groupsClass(c, j.dpPeers(rk))
	dpX := rr.Exposed[CommDP]
	if j.Layout.EP > 1 {
		ec := groupsClass(c, j.expertDPPeers(rk))
		if ec != e.DPClass {
			// share of each in one bucket's reduction of the rank's
			// first chunk (the same bytes per parameter for both)
			sh := newCoster(j, rk, newCollMemo(c)).sh
			ad, _ := j.Model.Params(zoo.PartAttention, sh)
			md, me := j.Model.Params(zoo.PartMLP, sh)
			memo := newCollMemo(c)
			td, err := memo.time(j.dpPeers(rk), AllReduce, float64(ad+md)*2)
			if err != nil {
				return nil, err
			}
			te, err := memo.time(j.expertDPPeers(rk), AllReduce, float64(me)*2)
			if err != nil {
				return nil, err
			}
			if td+te > 0 {
				e.DP[e.DPClass] += dpX * td / (td + te)
				e.DP[ec] += dpX * te / (td + te)
				dpX = 0
			}
		}
	}
	e.DP[e.DPClass] += dpX

	// pipeline: the sends into rank rk
	prev, next := (rk-1+P)%P, (rk+1)%P
	e.PPFrom = groupsClass(c, j.ppPairs(prev, rk))
	e.PPTo = groupsClass(c, j.ppPairs(rk, next))
	into := [2]LinkClass{e.PPFrom, groupsClass(c, j.ppPairs(next, rk))}
	ppX := rr.Exposed[CommPP]
	if ppX == 0 || P == 1 {
		e.Exact = true
		return e, nil
	}
	// producer spans and send ends, by (virtual stage, micro-batch)
	type key struct{ dir, vs, mb int }
	prodEnd := map[key]float64{}
	arrive := map[key]float64{}
	var inTime [2]float64
	for _, src := range []int{prev, next} {
		for _, sp := range r.Ranks[src].Spans {
			t := sp.Task
			vs := t.Chunk*P + src
			if t.Backward {
				prodEnd[key{1, vs - 1, t.MicroBatch}] = sp.End
			} else {
				prodEnd[key{0, vs + 1, t.MicroBatch}] = sp.End
			}
		}
		for _, cs := range r.Ranks[src].Comm {
			if cs.Kind != CommPP {
				continue
			}
			var mb, vs int
			dir := 0
			if _, err := fmt.Sscanf(cs.What, "send activation %d to stage %d", &mb, &vs); err != nil {
				if _, err := fmt.Sscanf(cs.What, "send gradient %d to stage %d", &mb, &vs); err != nil {
					continue
				}
				dir = 1
			}
			if vs%P != rk {
				continue
			}
			arrive[key{dir, vs, mb}] = cs.End
			inTime[dir] += cs.End - cs.Start
		}
	}
	nvs := P * j.Layout.VP
	var found [numLinkClass]float64
	free := 0.0
	for _, sp := range rr.Spans {
		t := sp.Task
		vs := t.Chunk*P + rk
		dir := -1
		switch {
		case !t.Backward && vs > 0:
			dir = 0
		case t.Backward && vs < nvs-1:
			dir = 1
		}
		if dir >= 0 {
			k := key{dir, vs, t.MicroBatch}
			dep, ok1 := arrive[k]
			sent, ok2 := prodEnd[k]
			if ok1 && ok2 && dep > free {
				found[into[dir]] += math.Max(0, dep-math.Max(free, sent))
			}
		}
		free = sp.End
	}
	sum := 0.0
	for _, v := range found {
		sum += v
	}
	// the reconstruction must give the simulator's figure
	const relTol = 1e-9
	if math.Abs(sum-ppX) <= relTol*math.Max(1, ppX) {
		e.PP, e.Exact = found, true
		return e, nil
	}
	if tot := inTime[0] + inTime[1]; tot > 0 {
		e.PP[into[0]] += ppX * inTime[0] / tot
		e.PP[into[1]] += ppX * inTime[1] / tot
	} else {
		e.PP[into[0]] += ppX
	}
	return e, nil
}
