package study

import (
	"context"
	"fmt"
	"time"

	"placesim/devices"
	"placesim/engine/llm"
	"placesim/links"
	"placesim/placers"
	"placesim/workloads"
)

// PlannerEven is Megatron-LM's split of layers over pipeline stages
// (llm.EvenStages), the baseline of a comparison of stage planners.
const PlannerEven = "even"

// DefaultStagePlanners are the seeds' placers that plan a pipeline,
// compared with Megatron's even split by CompareStagePlanners.
var DefaultStagePlanners = []string{PlannerEven, "tarnawski-dp", "tarnawski-dpl", "pipedream", "order-place", "metis", "scotch"}

// StagePlan is one planner's split and its simulated iteration.
type StagePlan struct {
	Planner string `json:"planner"`
	// Stages is the layers of each virtual stage.
	Stages []int `json:"stages"`
	// Result of the simulation (nil on failure).
	Result *llm.Result `json:"-"`
	// PlaceTime is the planner's wall time.
	PlaceTime float64 `json:"placeTime"`
	// Notes say how the planner's placement became a pipeline split.
	Notes   []string `json:"notes,omitempty"`
	Failure string   `json:"failure,omitempty"`
}

// StageGraph is the pipeline-planning view of a job: a chain of the
// embedding, the transformer layers and the head (each op one micro-batch's
// forward and backward on one tensor x context group, its time measured
// by the large-model cost model, its memory the model state per GPU plus
// the activations the first stage of 1F1B keeps for PP micro-batches),
// and a cluster of PP·VP group-devices (each a tensor x context group
// seen as one device with one GPU's memory, VP of them sharing a GPU get
// 1/VP of it) joined by the route between consecutive pipeline ranks.
// The embedding and the head are colocated with the first and last layer,
// where Megatron-LM puts them.
func StageGraph(j *llm.Job) (*workloads.Graph, *devices.Cluster, error) {
	pt, err := llm.PartTimesOf(j)
	if err != nil {
		return nil, nil, err
	}
	l := j.Layout
	m := j.Model
	inflight := int64(min(l.PP, l.MicroBatches()))
	g := workloads.NewGraph(fmt.Sprintf("stages:%s", m.Name), l.MicroBatch)
	add := func(name string, t float64, state, act int64, coloc string) int {
		return g.AddOp(workloads.Op{Name: name, Type: "layer", Layer: name, FLOPs: 0,
			ParamBytes: state + inflight*act, OutputBytes: pt.Boundary, Colocation: coloc,
			Measured: map[string]float64{workloads.MeasuredAny: t}})
	}
	prev := add("embedding", pt.Embedding, pt.EmbeddingState, 0, "first")
	for i := 0; i < m.Layers; i++ {
		coloc := ""
		if i == 0 {
			coloc = "first"
		}
		if i == m.Layers-1 {
			coloc = "last"
		}
		id := add(fmt.Sprintf("layer_%d", i), pt.Layer, pt.LayerState, pt.LayerActivations, coloc)
		g.AddEdge(prev, id, pt.Boundary)
		prev = id
	}
	head := add("head", pt.Head, pt.HeadState, 0, "last")
	g.AddEdge(prev, head, pt.Boundary)
	if err := g.Validate(); err != nil {
		return nil, nil, err
	}
	// group-devices
	n := l.PP * l.VP
	rep := j.Cluster.Devices[0]
	bw, lat := 0.0, 0.0
	if l.PP > 1 {
		next := l.TP * l.CP * l.DP // rank of pipeline rank 1's representative
		for _, lid := range j.Cluster.Route(0, next) {
			lk := j.Cluster.Topology.Links[lid]
			if bw == 0 || lk.Bandwidth < bw {
				bw = lk.Bandwidth
			}
			lat += lk.Latency
		}
	}
	if bw == 0 {
		bw, lat = 1e15, 0
	}
	top := links.NewTopology()
	sw, err := top.AddEndpoint("pipeline", links.NetSwitch)
	if err != nil {
		return nil, nil, err
	}
	var devs []devices.Device
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("stage%d", i)
		e, err := top.AddEndpoint(name, links.GPU)
		if err != nil {
			return nil, nil, err
		}
		// half the latency each way through the switch
		if err := top.ConnectCustom(e, sw, "pipeline", "pipeline", bw, lat/2); err != nil {
			return nil, nil, err
		}
		devs = append(devs, devices.Device{Name: name, Kind: rep.Kind, Memory: rep.Memory / int64(l.VP), Endpoint: e})
	}
	c, err := devices.NewCluster(fmt.Sprintf("%d groups of tp=%d x cp=%d", n, l.TP, l.CP), top, devs)
	if err != nil {
		return nil, nil, err
	}
	return g, c, nil
}

// PlanStages asks the placer `name` of reg for the layer-to-stage split
// of j (PP·VP virtual stages). A placement that is not contiguous along
// the chain keeps the placer's number of layers per device, laid out in
// the order of each device's first layer (a note says so).
func PlanStages(ctx context.Context, reg *placers.Registry, name string, j *llm.Job) ([]int, []string, error) {
	n := j.Layout.PP * j.Layout.VP
	if name == PlannerEven {
		return llm.EvenStages(j.Model.Layers, n), nil, nil
	}
	g, c, err := StageGraph(j)
	if err != nil {
		return nil, nil, err
	}
	p, err := reg.New(name, nil)
	if err != nil {
		return nil, nil, err
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		return nil, nil, err
	}
	plan, err := p.Place(ctx, &placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: 1})
	if err != nil {
		return nil, nil, err
	}
	if len(plan.Device) < g.Ops[len(g.Ops)-1].ID+1 {
		return nil, nil, fmt.Errorf("placer %s placed %d of %d ops", name, len(plan.Device), len(g.Ops))
	}
	var notes []string
	count := make([]int, n)
	var order []int
	seen := make([]bool, n)
	contiguous := true
	last := -1
	for i := 1; i <= j.Model.Layers; i++ { // ops 1..L are the layers
		d := plan.Device[i]
		if d < 0 || d >= n {
			return nil, nil, fmt.Errorf("placer %s put layer %d on device %d of %d", name, i-1, d, n)
		}
		if !seen[d] {
			seen[d] = true
			order = append(order, d)
		} else if d != last {
			contiguous = false
		}
		last = d
		count[d]++
	}
	if !contiguous {
		notes = append(notes, "placement not contiguous along the layers: its layers per device kept, laid out in order")
	}
	for d := 0; d < n; d++ {
		if !seen[d] {
			order = append(order, d)
		}
	}
	stages := make([]int, n)
	for k, d := range order {
		stages[k] = count[d]
	}
	return stages, notes, nil
}

// CompareStagePlanners plans j's stages with each planner and simulates
// every split. A planner that fails is a row with its failure.
func CompareStagePlanners(ctx context.Context, reg *placers.Registry, names []string, j *llm.Job) []StagePlan {
	var out []StagePlan
	for _, name := range names {
		sp := StagePlan{Planner: name}
		t0 := time.Now()
		stages, notes, err := PlanStages(ctx, reg, name, j)
		sp.PlaceTime = time.Since(t0).Seconds()
		sp.Notes = notes
		if err != nil {
			sp.Failure = err.Error()
			out = append(out, sp)
			continue
		}
		jj := *j
		jj.Stages, jj.Planner = stages, name
		sp.Stages = stages
		res, err := llm.Simulate(&jj)
		if err != nil {
			sp.Failure = err.Error()
		}
		sp.Result = res
		out = append(out, sp)
	}
	return out
}
