package workloads

import "strings"

// Stats summarises a graph's size, work and memory.
type Stats struct {
	// Ops and Edges count the graph; Forward, Backward and Update count
	// the ops by role.
	Ops      int `json:"ops"`
	Edges    int `json:"edges"`
	Forward  int `json:"forward"`
	Backward int `json:"backward"`
	Update   int `json:"update"`
	// Layers is the number of distinct Layer names (ops without one count
	// as their own layer); ColocationGroups the distinct Colocation names.
	Layers           int `json:"layers"`
	ColocationGroups int `json:"colocationGroups"`
	// FLOPs is the total work.
	FLOPs float64 `json:"flops"`
	// ParamBytes is the forward ops' parameters (and state such as batch
	// norm statistics); TrainableBytes the part with a gradient.
	ParamBytes     int64 `json:"paramBytes"`
	TrainableBytes int64 `json:"trainableBytes"`
	// ResidentBytes is every op's ParamBytes: in a training graph also the
	// gradient buffers and optimizer state held by the update ops.
	ResidentBytes int64 `json:"residentBytes"`
	// ActivationBytes is the forward ops' outputs; SavedBytes the part read
	// by backward ops (kept alive from the forward to the backward pass).
	ActivationBytes int64 `json:"activationBytes"`
	SavedBytes      int64 `json:"savedBytes"`
	// EdgeBytes is the bytes all edges carry.
	EdgeBytes int64 `json:"edgeBytes"`
	// Kernels is the number of kernels a step launches: the ops that run
	// one (LaunchesKernel), under the workload's framework profile.
	Kernels int `json:"kernels"`
	// Framework and Precision are the workload's profile and precision
	// ("" when a file does not say).
	Framework string `json:"framework,omitempty"`
	Precision string `json:"precision,omitempty"`
	// LayerFLOPs is the forward FLOPs by layer group (the first
	// '/'-separated component of each forward op's Layer, "-" for ops
	// without one), in the order the groups first appear: where a model's
	// work is (BERT's encoder against its masked-LM head, say).
	LayerFLOPs []GroupFLOPs `json:"layerFlops,omitempty"`
}

// GroupFLOPs is one layer group's forward work.
type GroupFLOPs struct {
	Group string  `json:"group"`
	Ops   int     `json:"ops"`
	FLOPs float64 `json:"flops"`
}

// LayerGroup is the group of a layer name in Stats.LayerFLOPs: its first
// '/'-separated component ("-" for an empty name).
func LayerGroup(layer string) string {
	if layer == "" {
		return "-"
	}
	if i := strings.IndexByte(layer, '/'); i >= 0 {
		return layer[:i]
	}
	return layer
}

// ComputeStats summarises g.
func ComputeStats(g *Graph) Stats {
	s := Stats{Ops: len(g.Ops), Edges: len(g.Edges), Framework: g.Framework, Precision: string(g.Precision)}
	layers := map[string]bool{}
	groups := map[string]bool{}
	byGroup := map[string]int{}
	for i := range g.Ops {
		op := &g.Ops[i]
		s.FLOPs += op.FLOPs
		if LaunchesKernel(op) {
			s.Kernels++
		}
		s.ResidentBytes += op.ParamBytes
		if op.Layer != "" {
			layers[op.Layer] = true
		} else {
			layers["\x00"+op.Name] = true
		}
		if op.Colocation != "" {
			groups[op.Colocation] = true
		}
		switch op.Role {
		case Forward:
			s.Forward++
			grp := LayerGroup(op.Layer)
			k, ok := byGroup[grp]
			if !ok {
				k = len(s.LayerFLOPs)
				byGroup[grp] = k
				s.LayerFLOPs = append(s.LayerFLOPs, GroupFLOPs{Group: grp})
			}
			s.LayerFLOPs[k].Ops++
			s.LayerFLOPs[k].FLOPs += op.FLOPs
			s.ParamBytes += op.ParamBytes
			if !GradRuleFor(op.Type).NoGradient {
				s.TrainableBytes += op.ParamBytes
			}
			s.ActivationBytes += op.OutputBytes
			for _, eid := range g.Out(i) {
				if g.Ops[g.Edges[eid].To].Role == Backward {
					s.SavedBytes += op.OutputBytes
					break
				}
			}
		case Backward:
			s.Backward++
		case Update:
			s.Update++
		}
	}
	for _, e := range g.Edges {
		s.EdgeBytes += e.Bytes
	}
	s.Layers, s.ColocationGroups = len(layers), len(groups)
	return s
}

// CCR is the communication-to-computation ratio of Celeritas' equation 1
// (section 5.1.1): the sum over edges (i, j) of the time c_ij to send the
// edge's bytes from one device to another, over the sum over ops of their
// computation time w_i. opTime(op) is w_i; transferTime(bytes) is c_ij for
// an edge of that many bytes. It is 0 for a graph without computation time.
func CCR(g *Graph, opTime func(op int) float64, transferTime func(bytes int64) float64) float64 {
	var c, w float64
	for _, e := range g.Edges {
		c += transferTime(e.Bytes)
	}
	for i := range g.Ops {
		w += opTime(i)
	}
	if w == 0 {
		return 0
	}
	return c / w
}
