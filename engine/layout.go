package engine

import (
	"fmt"
	"slices"
	"sort"

	"placesim/devices"
	"placesim/internal/checked"
	"placesim/workloads"
)

// layout is a checked pipeline / data-parallel plan: stages in order, the
// devices of every replica, and the schedule.
type layout struct {
	sched     Schedule // "" without a pipeline (data parallelism only)
	m         int      // micro-batches (1 without a pipeline)
	recompute bool
	topo      []int     // ops in topological order
	topoPos   []int32   // op -> position in topo
	stages    [][]int32 // ops of each stage, in topological order
	stageOf   []int32   // op -> stage
	stageDev  []int     // replica 0's device of each stage
	reps      int
	// used: replica 0's devices, ascending; usedAt[d]: d's index in
	// used (-1 where the plan does not use d); repDev[r][j]: the device
	// replica r uses for replica 0's device used[j] (dev reads it by
	// device: one entry per replica and device used, not per device of
	// the cluster)
	used    []int
	usedAt  []int32
	repDev  [][]int
	bucket  int64 // all-reduce bucket bytes (0: one per stage)
	overlap bool  // buckets start when their gradients are ready
}

// layout checks p's Pipeline and DataParallel against g and c and returns
// them resolved. Errors wrap ErrInvalidPlan and name the field.
func (p *Plan) layout(g *workloads.Graph, c *devices.Cluster) (*layout, error) {
	l := &layout{m: 1, reps: 1}
	if !p.unrolledPlan() {
		// a step: one instance per op on the plan's own devices
		all := make([]int, len(c.Devices))
		for d := range all {
			all[d] = d
		}
		l.setUsed(all, len(c.Devices))
		return l, nil
	}
	topo, err := g.TopoOrder()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidPlan, err)
	}
	l.topo = topo
	l.topoPos = make([]int32, len(g.Ops))
	for i, v := range topo {
		l.topoPos[v] = int32(i)
	}
	if pl := p.Pipeline; pl != nil {
		if _, err := ParseSchedule(string(pl.Schedule)); err != nil {
			return nil, fmt.Errorf("%w: field pipeline.schedule = %q (valid: %s)", ErrInvalidPlan, pl.Schedule, scheduleNames())
		}
		if pl.MicroBatches < 1 {
			return nil, fmt.Errorf("%w: field pipeline.microBatches = %d (valid range: >= 1)", ErrInvalidPlan, pl.MicroBatches)
		}
		if p.Order != nil {
			return nil, fmt.Errorf("%w: field order is set with a pipeline (valid: no order; the schedule %q fixes each device's order)", ErrInvalidPlan, pl.Schedule)
		}
		if p.Priority != nil {
			return nil, fmt.Errorf("%w: field priority is set with a pipeline (valid: no priority; the schedule %q fixes each device's order)", ErrInvalidPlan, pl.Schedule)
		}
		l.sched, l.m, l.recompute = pl.Schedule, pl.MicroBatches, pl.Recompute
		if err := l.setStages(p, g, c, pl.Stages); err != nil {
			return nil, err
		}
	} else if err := l.setStages(p, g, c, nil); err != nil {
		return nil, err
	}
	if err := l.setReplicas(p, c); err != nil {
		return nil, err
	}
	if dp := p.DataParallel; dp != nil && (dp.WireBytes < 0 || int64(dp.WireBytes) > g.Precision.ParamBytes()) {
		return nil, fmt.Errorf("%w: field dataParallel.wireBytes = %d (valid range: 0 to the gradients' %d bytes per element at precision %s; 0 = the gradients' own)",
			ErrInvalidPlan, dp.WireBytes, g.Precision.ParamBytes(), g.Precision)
	}
	if err := l.checkBatch(g); err != nil {
		return nil, err
	}
	return l, nil
}

// setStages checks explicit stages, or derives them from the devices.
func (l *layout) setStages(p *Plan, g *workloads.Graph, c *devices.Cluster, stages [][]int) error {
	n := len(g.Ops)
	l.stageOf = make([]int32, n)
	for i := range l.stageOf {
		l.stageOf[i] = -1
	}
	if stages == nil {
		l.deriveStages(p, g)
	} else if err := l.checkStages(p, g, c, stages); err != nil {
		return err
	}
	l.stages = make([][]int32, len(l.stageDev))
	for _, v := range l.topo {
		s := l.stageOf[v]
		l.stages[s] = append(l.stages[s], int32(v))
	}
	return nil
}

// checkStages takes explicit stages: every op in exactly one, a stage's
// ops on one device.
func (l *layout) checkStages(p *Plan, g *workloads.Graph, c *devices.Cluster, stages [][]int) error {
	n := len(g.Ops)
	if len(stages) == 0 {
		return fmt.Errorf("%w: field pipeline.stages is empty (valid: nil, or one or more stages that cover the graph)", ErrInvalidPlan)
	}
	l.stageDev = make([]int, len(stages))
	for s, ops := range stages {
		if len(ops) == 0 {
			return fmt.Errorf("%w: pipeline.stages[%d] is empty (valid: at least one op)", ErrInvalidPlan, s)
		}
		for _, v := range ops {
			if v < 0 || v >= n {
				return fmt.Errorf("%w: pipeline.stages[%d] names op %d (valid range: 0..%d)", ErrInvalidPlan, s, v, n-1)
			}
			if o := l.stageOf[v]; o >= 0 {
				return fmt.Errorf("%w: op %q is in pipeline.stages[%d] and pipeline.stages[%d] (stages must not overlap)", ErrInvalidPlan, g.Ops[v].Name, o, s)
			}
			l.stageOf[v] = int32(s)
		}
		d := p.Device[ops[0]]
		for _, v := range ops[1:] {
			if p.Device[v] != d {
				return fmt.Errorf("%w: pipeline.stages[%d] has op %q on %s and op %q on %s (a stage runs on one device)",
					ErrInvalidPlan, s, g.Ops[ops[0]].Name, c.Devices[d].Name, g.Ops[v].Name, c.Devices[p.Device[v]].Name)
			}
		}
		l.stageDev[s] = d
	}
	for v, s := range l.stageOf {
		if s < 0 {
			return fmt.Errorf("%w: op %q is in no stage (pipeline.stages must cover the graph's %d ops)", ErrInvalidPlan, g.Ops[v].Name, n)
		}
	}
	return nil
}

// deriveStages cuts the plan into stages when none are given: the forward
// ops are walked in a topological order that stays on one device as long
// as it can, and every maximal run on one device is a stage. A device
// whose part is contiguous is one stage; a non-contiguous part becomes
// several stages in topological order, the "virtual devices" of Tarnawski
// et al. §5.2 (Figure 3b). Backward and update ops join the stage of their
// colocation group's forward op on their device; others (orphans) the
// latest stage of their device not after their inputs' latest stage, else
// their device's first stage, else a stage of their own at the end.
func (l *layout) deriveStages(p *Plan, g *workloads.Graph) {
	n := len(g.Ops)
	// Kahn's algorithm on the forward ops, one ready heap per device
	indeg := make([]int32, n)
	for v := range g.Ops {
		if g.Ops[v].Role != workloads.Forward {
			continue
		}
		for _, eid := range g.In(v) {
			if g.Ops[g.Edges[eid].From].Role == workloads.Forward {
				indeg[v]++
			}
		}
	}
	ready := map[int]*readyHeap{}
	push := func(v int) {
		d := p.Device[v]
		h := ready[d]
		if h == nil {
			h = &readyHeap{}
			ready[d] = h
		}
		h.push(readyItem{prio: -float64(l.topoPos[v]), op: int32(v)})
	}
	for _, v := range l.topo {
		if g.Ops[v].Role == workloads.Forward && indeg[v] == 0 {
			push(v)
		}
	}
	cur := -1
	for {
		h := ready[cur]
		if h == nil || h.len() == 0 {
			// the device whose next op comes first topologically
			best, bestPos := -1, int32(n)
			for d, hd := range ready {
				if hd.len() > 0 && int32(-hd.items[0].prio) < bestPos {
					best, bestPos = d, int32(-hd.items[0].prio)
				}
			}
			if best < 0 {
				break
			}
			cur = best
			h = ready[cur]
			l.stageDev = append(l.stageDev, cur)
		}
		v := int(h.pop().op)
		l.stageOf[v] = int32(len(l.stageDev) - 1)
		for _, eid := range g.Out(v) {
			w := g.Edges[eid].To
			if g.Ops[w].Role == workloads.Forward {
				if indeg[w]--; indeg[w] == 0 {
					push(w)
				}
			}
		}
	}
	// the stages of each device, ascending
	byDev := map[int][]int32{}
	for s, d := range l.stageDev {
		byDev[d] = append(byDev[d], int32(s))
	}
	colo := map[string][]int32{} // forward stages of each colocation group
	for _, v := range l.topo {
		if op := &g.Ops[v]; op.Role == workloads.Forward && op.Colocation != "" {
			colo[op.Colocation] = append(colo[op.Colocation], l.stageOf[v])
		}
	}
	for _, v := range l.topo {
		if l.stageOf[v] >= 0 {
			continue
		}
		d := p.Device[v]
		st := int32(-1)
		for _, s := range colo[g.Ops[v].Colocation] {
			if l.stageDev[s] == d && s > st && g.Ops[v].Colocation != "" {
				st = s
			}
		}
		if st < 0 {
			latest := int32(-1)
			for _, eid := range g.In(v) {
				latest = max(latest, l.stageOf[g.Edges[eid].From])
			}
			for _, s := range byDev[d] {
				if s <= latest {
					st = s
				}
			}
			if st < 0 && len(byDev[d]) > 0 {
				st = byDev[d][0]
			}
		}
		if st < 0 {
			st = int32(len(l.stageDev))
			l.stageDev = append(l.stageDev, d)
			byDev[d] = append(byDev[d], st)
		}
		l.stageOf[v] = st
	}
}

// setUsed makes used (ascending, of a cluster of nd devices) replica 0's
// devices, each standing for itself.
func (l *layout) setUsed(used []int, nd int) {
	l.used = used
	l.usedAt = make([]int32, nd)
	for d := range l.usedAt {
		l.usedAt[d] = -1
	}
	for j, d := range used {
		l.usedAt[d] = int32(j)
	}
	l.repDev = [][]int{slices.Clone(used)}
}

// dev is the device replica r uses for replica 0's device d (-1 where the
// plan does not use d).
func (l *layout) dev(r, d int) int {
	if j := l.usedAt[d]; j >= 0 {
		return l.repDev[r][j]
	}
	return -1
}

// setReplicas resolves the devices of every data-parallel replica.
func (l *layout) setReplicas(p *Plan, c *devices.Cluster) error {
	nd := len(c.Devices)
	used := append([]int(nil), l.stageDev...)
	sort.Ints(used)
	used = slices.Compact(used)
	l.setUsed(used, nd)
	dp := p.DataParallel
	if dp == nil {
		return nil
	}
	if dp.Replicas < 1 {
		return fmt.Errorf("%w: field dataParallel.replicas = %d (valid range: >= 1)", ErrInvalidPlan, dp.Replicas)
	}
	if dp.BucketBytes < 0 {
		return fmt.Errorf("%w: field dataParallel.bucketBytes = %d (valid range: >= 0; 0 = one bucket per stage)", ErrInvalidPlan, dp.BucketBytes)
	}
	if err := dp.Collective.validate(); err != nil {
		return err
	}
	l.reps, l.bucket, l.overlap = dp.Replicas, dp.BucketBytes, dp.Overlap
	taken := make([]bool, nd)
	for _, d := range used {
		taken[d] = true
	}
	if dp.Devices != nil {
		if len(dp.Devices) != dp.Replicas {
			return fmt.Errorf("%w: field dataParallel.devices has %d replicas (valid: dataParallel.replicas = %d lists)", ErrInvalidPlan, len(dp.Devices), dp.Replicas)
		}
		for j, d := range dp.Devices[0] {
			if j >= len(used) || d != used[j] {
				return fmt.Errorf("%w: field dataParallel.devices[0] = %v (valid: the devices the plan uses, ascending: %v)", ErrInvalidPlan, dp.Devices[0], used)
			}
		}
		if len(dp.Devices[0]) != len(used) {
			return fmt.Errorf("%w: field dataParallel.devices[0] = %v (valid: the devices the plan uses, ascending: %v)", ErrInvalidPlan, dp.Devices[0], used)
		}
	}
	next := map[string]int{} // by kind: where the search for a free device resumes
	for r := 1; r < dp.Replicas; r++ {
		m := make([]int, len(used))
		for j, d := range used {
			var rd int
			if dp.Devices != nil {
				if len(dp.Devices[r]) != len(used) {
					return fmt.Errorf("%w: field dataParallel.devices[%d] has %d devices (valid: %d, one per device the plan uses)", ErrInvalidPlan, r, len(dp.Devices[r]), len(used))
				}
				rd = dp.Devices[r][j]
				if rd < 0 || rd >= nd {
					return fmt.Errorf("%w: field dataParallel.devices[%d][%d] = %d (valid range: 0..%d)", ErrInvalidPlan, r, j, rd, nd-1)
				}
				if taken[rd] {
					return fmt.Errorf("%w: field dataParallel.devices[%d][%d]: device %s is used twice (every replica needs its own devices)", ErrInvalidPlan, r, j, c.Devices[rd].Name)
				}
			} else {
				// the first free device of d's kind: devices before its
				// kind's cursor are taken or of another kind (taken only
				// grows), so the search resumes there
				kind := c.Devices[d].Kind.Name
				rd = -1
				for e := next[kind]; e < nd; e++ {
					if !taken[e] && c.Devices[e].Kind.Name == kind {
						rd = e
						next[kind] = e + 1
						break
					}
				}
				if rd < 0 {
					return fmt.Errorf("%w: field dataParallel.replicas = %d: replica %d finds no free device of kind %s for %s in cluster %q (valid: at most as many replicas as free devices allow, or give dataParallel.devices)",
						ErrInvalidPlan, dp.Replicas, r, c.Devices[d].Kind.Name, c.Devices[d].Name, c.Name)
				}
			}
			if c.Devices[rd].Kind.Class != c.Devices[d].Kind.Class {
				return fmt.Errorf("%w: field dataParallel.devices[%d][%d]: %s is a %s, it replicates %s, a %s (valid: a device of the same class)",
					ErrInvalidPlan, r, j, c.Devices[rd].Name, c.Devices[rd].Kind.Class, c.Devices[d].Name, c.Devices[d].Kind.Class)
			}
			taken[rd] = true
			m[j] = rd
		}
		l.repDev = append(l.repDev, m)
	}
	return nil
}

// checkParallel validates the pipeline and data-parallel parts of p and
// returns their layout (nil for a plain step), which Simulate hands to
// unroll so that it is built once per simulation.
func (p *Plan) checkParallel(g *workloads.Graph, c *devices.Cluster) (*layout, error) {
	if p.Pipeline == nil && p.DataParallel == nil {
		return nil, nil
	}
	return p.layout(g, c)
}

// checkBatch refuses to cut a batch into more micro-batch instances than
// it has samples: micro-batches x replicas must not exceed the graph's
// batch. A graph of batch 1 (msr-fiddle's, whose batch is not given: its
// costs are per step, and the max-load model pipelines it with any number
// of micro-batches) is not checked.
func (l *layout) checkBatch(g *workloads.Graph) error {
	if g.Batch <= 1 {
		return nil
	}
	if l.m > g.Batch {
		return fmt.Errorf("%w: field pipeline.microBatches = %d is more than graph %q's batch (valid range: 1..%d)", ErrInvalidPlan, l.m, g.Name, g.Batch)
	}
	if l.reps > g.Batch {
		return fmt.Errorf("%w: field dataParallel.replicas = %d is more than graph %q's batch (valid range: 1..%d)", ErrInvalidPlan, l.reps, g.Name, g.Batch)
	}
	if mr, ok := checked.CountOf(int64(l.m)).Mul(uint64(l.reps)).Value(); !ok || mr > uint64(g.Batch) {
		return fmt.Errorf("%w: fields pipeline.microBatches x dataParallel.replicas = %d x %d is more than graph %q's batch of %d (valid: at most one sample per micro-batch and replica; micro-batches in 1..%d)",
			ErrInvalidPlan, l.m, l.reps, g.Name, g.Batch, g.Batch/l.reps)
	}
	return nil
}
