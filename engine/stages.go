package engine

import (
	"fmt"

	"placesim/workloads"
)

// EvenStages splits g into len(devs) pipeline stages with equal numbers of
// forward layers (contiguous in topological order; the first stages take
// one more when they do not divide evenly) and puts stage s on devs[s]. A
// layer is the forward ops sharing a non-empty Op.Layer; a forward op
// without a layer is a layer of its own (an msr-fiddle layer graph: one
// node per layer). Backward and update ops follow the forward op of their
// colocation group (a layer's gradient and update stay with it); others
// go with the latest stage among their inputs (stage 0 without any). It
// returns the device of every op and the stages (see Pipeline.Stages).
func EvenStages(g *workloads.Graph, devs []int) (device []int, stages [][]int, err error) {
	p := len(devs)
	if p < 1 {
		return nil, nil, fmt.Errorf("%w: even stages on %d devices (valid range: >= 1)", ErrInvalidPlan, p)
	}
	topo, err := g.TopoOrder()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalidPlan, err)
	}
	// forward layers in the order their first op appears
	layerOf := make([]int, len(g.Ops))
	index := map[string]int{}
	layers := 0
	for _, v := range topo {
		op := &g.Ops[v]
		layerOf[v] = -1
		if op.Role != workloads.Forward {
			continue
		}
		if op.Layer == "" {
			layerOf[v] = layers
			layers++
			continue
		}
		l, ok := index[op.Layer]
		if !ok {
			l = layers
			index[op.Layer] = l
			layers++
		}
		layerOf[v] = l
	}
	if layers < p {
		return nil, nil, fmt.Errorf("%w: graph %q has %d forward layers, too few for %d stages (valid: at most one stage per layer)", ErrInvalidPlan, g.Name, layers, p)
	}
	// layer l goes to the stage whose share it falls in
	stageOfLayer := func(l int) int {
		q, r := layers/p, layers%p
		// the first r stages have q+1 layers
		if l < r*(q+1) {
			return l / (q + 1)
		}
		return r + (l-r*(q+1))/q
	}
	stage := make([]int, len(g.Ops))
	for v := range stage {
		stage[v] = -1
		if layerOf[v] >= 0 {
			stage[v] = stageOfLayer(layerOf[v])
		}
	}
	return FollowStages(g, stage, devs)
}

// FollowStages completes a stage assignment given for the forward ops:
// stage[v] is op v's stage (0..len(devs)-1), or -1 for a backward or
// update op that follows the forward op of its colocation group, else the
// latest stage among its inputs (stage 0 without any). Stage s runs on
// devs[s]. It returns the device of every op and the stages in pipeline
// order (see Pipeline.Stages). A forward op without a stage, a stage out
// of range or an empty stage is an error.
func FollowStages(g *workloads.Graph, stage []int, devs []int) (device []int, stages [][]int, err error) {
	p := len(devs)
	if len(stage) != len(g.Ops) {
		return nil, nil, fmt.Errorf("%w: %d stage assignments for %d ops", ErrInvalidPlan, len(stage), len(g.Ops))
	}
	topo, err := g.TopoOrder()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalidPlan, err)
	}
	stage = append([]int(nil), stage...)
	for v, s := range stage {
		switch {
		case s >= p || s < -1:
			return nil, nil, fmt.Errorf("%w: op %q is in stage %d (valid range: 0..%d, or -1 to follow its forward op)", ErrInvalidPlan, g.Ops[v].Name, s, p-1)
		case s == -1 && g.Ops[v].Role == workloads.Forward:
			return nil, nil, fmt.Errorf("%w: forward op %q is in no stage (every forward op needs one)", ErrInvalidPlan, g.Ops[v].Name)
		}
	}
	follow(g, topo, stage)
	device = make([]int, len(g.Ops))
	stages = make([][]int, p)
	for _, v := range topo {
		device[v] = devs[stage[v]]
		stages[stage[v]] = append(stages[stage[v]], v)
	}
	for s, ops := range stages {
		if len(ops) == 0 {
			return nil, nil, fmt.Errorf("%w: stage %d of %d has no op", ErrInvalidPlan, s, p)
		}
	}
	return device, stages, nil
}

// follow gives every op without a stage (stage -1) the stage of the
// forward op of its colocation group, else the latest stage among its
// inputs (0 without any). topo is a topological order of g.
func follow(g *workloads.Graph, topo []int, stage []int) {
	colo := map[string]int{}
	for _, v := range topo {
		op := &g.Ops[v]
		if stage[v] >= 0 && op.Role == workloads.Forward && op.Colocation != "" {
			if _, ok := colo[op.Colocation]; !ok {
				colo[op.Colocation] = stage[v]
			}
		}
	}
	for _, v := range topo {
		if stage[v] >= 0 {
			continue
		}
		if s, ok := colo[g.Ops[v].Colocation]; ok && g.Ops[v].Colocation != "" {
			stage[v] = s
			continue
		}
		s := 0
		for _, eid := range g.In(v) {
			s = max(s, stage[g.Edges[eid].From])
		}
		stage[v] = s
	}
}
