package study

import (
	"context"
	"fmt"
	"math"
	"sort"

	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
)

// Explanation is one validation row's simulated iteration taken apart on
// one GPU (the slowest replica's under data parallelism): compute by role
// and kernel class, the optimizer, what the all-reduce model charged the
// compute stream, the slowest GPU's slowdown, and the time the GPU idled
// while gradients were in flight (exposed communication) or otherwise.
// The parts sum to the iteration time.
type Explanation struct {
	Row ValidationResult `json:"row"`
	// Device is the GPU explained and Replica its data-parallel replica.
	Device   string `json:"device"`
	Replica  int    `json:"replica"`
	Replicas int    `json:"replicas"`
	// StepTime is the simulated iteration in seconds.
	StepTime float64       `json:"stepTime"`
	Parts    []ExplainPart `json:"parts"`
	// Comm describes the data-parallel all-reduces (nil on one GPU).
	Comm *ExplainComm `json:"comm,omitempty"`
}

// ExplainPart is one share of the iteration.
type ExplainPart struct {
	// Part is compute, optimizer, allreduce-on-compute (the bucket
	// copies), contention-sm and contention-hbm (the compute slowed by the
	// SMs and the memory bandwidth the all-reduces' kernels held,
	// engine.DataParallelStats), slowest-gpu, exposed-comm, idle, or the
	// row's program's work beyond the kernels (HostCost): gradient-pass,
	// host-gather, host-issue-wait, host-reduce-loss, optimizer-issue-wait,
	// buffer-broadcast, unscale, slowest-batch, image-batch, session-run,
	// or input-wait (the GPU waiting
	// for the program's CPU input pipeline, InputTime); Role (forward, backward, recompute) and Class
	// (workloads.KernelClass) say which compute.
	Part    string  `json:"part"`
	Role    string  `json:"role,omitempty"`
	Class   string  `json:"class,omitempty"`
	Seconds float64 `json:"seconds"`
	// Kernels is how many op instances the part ran (compute parts).
	Kernels int `json:"kernels,omitempty"`
}

// ExplainComm is the all-reduces of an iteration.
type ExplainComm struct {
	Model      string `json:"model"`
	Algorithm  string `json:"algorithm"`
	AllReduces int    `json:"allReduces"`
	Bytes      int64  `json:"bytes"`
	// WireBytes is the bytes per gradient element they carried (0: the
	// gradients' own; engine.DataParallel.WireBytes).
	WireBytes int     `json:"wireBytes,omitempty"`
	BusBW     float64 `json:"busBW"`
	// Span is from the first all-reduce's start to the last one's end;
	// InFlight the time at least one was running; Exposed the part of it
	// during which the explained GPU's compute stream was idle.
	Span     float64 `json:"span"`
	InFlight float64 `json:"inFlight"`
	Exposed  float64 `json:"exposed"`
	// Slowdown is the slowest replica's compute slowdown (SpeedSpread).
	Slowdown float64 `json:"slowdown,omitempty"`
}

// Explain simulates the row with id among rows and takes its iteration
// apart. An unknown id is an error listing the valid ones.
func Explain(ctx context.Context, reg *placers.Registry, rows []ValidationRow, id, dir string) (*Explanation, error) {
	var row *ValidationRow
	for i := range rows {
		if rows[i].ID == id {
			row = &rows[i]
		}
	}
	if row == nil {
		ids := make([]string, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		return nil, fieldErr("explain", fmt.Errorf("%q: no such row id (valid: %v)", id, ids))
	}
	res, o, g, err := simulateRow(ctx, reg, *row, dir)
	if err != nil {
		return nil, fmt.Errorf("validation row %s (line %d): %w", row.ID, row.Line, err)
	}
	e := &Explanation{Row: res, Replicas: row.GPUs}
	if res.Failure != "" || o == nil || o.Result == nil {
		return e, nil
	}
	explainResult(e, o.Result, g, o.Plan)
	if h := res.Host; h != nil {
		// the row's program's work beyond the simulated kernels (HostCost)
		for _, p := range []ExplainPart{
			{Part: "gradient-pass", Seconds: h.GradientPassGPU},
			{Part: "host-gather", Seconds: h.GatherList},
			{Part: "host-issue-wait", Seconds: h.IssueWait},
			{Part: "host-reduce-loss", Seconds: h.ReduceLoss},
			{Part: "optimizer-issue-wait", Seconds: h.OptimizerIssueWait},
			{Part: "buffer-broadcast", Seconds: h.BufferBroadcast},
			{Part: "unscale", Seconds: h.Unscale},
			{Part: "slowest-batch", Seconds: h.SlowestBatch},
			{Part: "image-batch", Seconds: h.ImageBatch},
			{Part: "session-run", Seconds: h.SessionRun},
		} {
			if p.Seconds > 0 {
				e.Parts = append(e.Parts, p)
				e.StepTime += p.Seconds
			}
		}
	}
	if in := res.Input; in != nil && in.Exposed > 0 {
		// the GPU waits for its DataLoader workers (InputPipeline)
		e.Parts = append(e.Parts, ExplainPart{Part: "input-wait", Seconds: in.Exposed})
		e.StepTime += in.Exposed
	}
	return e, nil
}

// interval is [lo, hi).
type interval struct{ lo, hi float64 }

// explainResult fills e's parts from the simulation of g under plan.
func explainResult(e *Explanation, r *engine.Result, g *workloads.Graph, plan *engine.Plan) {
	e.StepTime = r.StepTime
	type key struct {
		part, role string
		class      workloads.KernelClass
	}
	sums := map[key]float64{}
	counts := map[key]int{}
	var busy []interval
	var charged, slowest float64
	add := func(op int, kind engine.NodeKind, start, end, base float64) {
		o := &g.Ops[op]
		k := key{part: "compute", role: o.Role.String(), class: workloads.KernelClassOf(o)}
		if kind == engine.NodeRecompute {
			k.role = "recompute"
		}
		if o.Role == workloads.Update {
			k = key{part: "optimizer"}
		}
		sums[k] += base
		counts[k]++
		if end > start {
			busy = append(busy, interval{start, end})
		}
		charged += end - start - base
	}
	dev := -1
	dp := r.DataParallel
	if in := r.Instances; in != nil {
		rep := 0
		if dp != nil {
			rep = dp.SlowestReplica
		}
		e.Replica = rep
		for x := range in.Op {
			if in.Op[x] < 0 || int(in.Replica[x]) != rep || (in.Kind[x] != engine.NodeCompute && in.Kind[x] != engine.NodeRecompute) {
				continue
			}
			if dev < 0 {
				dev = int(in.Device[x])
			}
			if int(in.Device[x]) != dev {
				continue // a pipeline's other stages: one GPU is explained
			}
			base := in.End[x] - in.Start[x]
			if in.Base != nil {
				base = in.Base[x]
			}
			if dp != nil && dp.Slowdown > 0 && rep == dp.SlowestReplica {
				s := base * dp.Slowdown
				slowest += s
				charged -= s
			}
			add(int(in.Op[x]), in.Kind[x], in.Start[x], in.End[x], base)
		}
	} else {
		for i := range g.Ops {
			if dev < 0 {
				dev = plan.Device[i]
			}
			if plan.Device[i] != dev {
				continue
			}
			add(i, engine.NodeCompute, r.OpStart[i], r.OpEnd[i], r.OpEnd[i]-r.OpStart[i])
		}
	}
	if dev >= 0 && dev < len(r.Devices) {
		e.Device = r.Devices[dev].Name
	}
	keys := make([]key, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	order := map[string]int{"forward": 0, "recompute": 1, "backward": 2}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.part != b.part {
			return a.part < b.part // compute before optimizer
		}
		if a.role != b.role {
			return order[a.role] < order[b.role]
		}
		return sums[a] > sums[b]
	})
	for _, k := range keys {
		if sums[k] == 0 {
			continue // inputs, views: no kernel runs
		}
		p := ExplainPart{Part: k.part, Seconds: sums[k], Kernels: counts[k]}
		if k.part == "compute" {
			p.Role, p.Class = k.role, k.class.String()
		}
		e.Parts = append(e.Parts, p)
	}
	if dp := r.DataParallel; dp != nil && r.Instances != nil {
		// what the all-reduces' kernels took from the overlapped compute
		// (the same on every replica), apart from the bucket copies
		for _, p := range []ExplainPart{{Part: "contention-sm", Seconds: dp.ContentionSMs}, {Part: "contention-hbm", Seconds: dp.ContentionHBM}} {
			if p.Seconds > 0 {
				e.Parts = append(e.Parts, p)
				charged -= p.Seconds
			}
		}
	}
	if math.Abs(charged) > 1e-12 {
		e.Parts = append(e.Parts, ExplainPart{Part: "allreduce-on-compute", Seconds: charged})
	}
	if slowest > 0 {
		e.Parts = append(e.Parts, ExplainPart{Part: "slowest-gpu", Seconds: slowest})
	}
	// idle time of the GPU, and the part of it with an all-reduce in flight
	idle := complement(union(busy), 0, r.StepTime)
	var exposed float64
	if dp != nil && len(dp.AllReduces) > 0 {
		var windows []interval
		c := &ExplainComm{Model: dp.Model, Algorithm: dp.Algorithm, AllReduces: len(dp.AllReduces), Bytes: dp.GradientBytes, WireBytes: dp.WireBytes, BusBW: dp.BusBW, Slowdown: dp.Slowdown}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, a := range dp.AllReduces {
			windows = append(windows, interval{a.Start, a.End})
			lo, hi = math.Min(lo, a.Start), math.Max(hi, a.End)
		}
		windows = union(windows)
		c.Span = hi - lo
		c.InFlight = length(windows)
		exposed = length(intersect(idle, windows))
		c.Exposed = exposed
		e.Comm = c
		e.Parts = append(e.Parts, ExplainPart{Part: "exposed-comm", Seconds: exposed})
	}
	if rest := length(idle) - exposed; rest > 0 {
		e.Parts = append(e.Parts, ExplainPart{Part: "idle", Seconds: rest})
	}
}

// union sorts and merges intervals.
func union(xs []interval) []interval {
	sort.Slice(xs, func(i, j int) bool { return xs[i].lo < xs[j].lo })
	var out []interval
	for _, x := range xs {
		if n := len(out); n > 0 && x.lo <= out[n-1].hi {
			out[n-1].hi = math.Max(out[n-1].hi, x.hi)
			continue
		}
		out = append(out, x)
	}
	return out
}

// complement is [lo, hi) less the sorted, disjoint xs.
func complement(xs []interval, lo, hi float64) []interval {
	var out []interval
	at := lo
	for _, x := range xs {
		if x.lo > at {
			out = append(out, interval{at, math.Min(x.lo, hi)})
		}
		at = math.Max(at, x.hi)
	}
	if at < hi {
		out = append(out, interval{at, hi})
	}
	return out
}

// intersect is the intersection of two sorted, disjoint interval lists.
func intersect(a, b []interval) []interval {
	var out []interval
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := math.Max(a[i].lo, b[j].lo), math.Min(a[i].hi, b[j].hi)
		if lo < hi {
			out = append(out, interval{lo, hi})
		}
		if a[i].hi < b[j].hi {
			i++
		} else {
			j++
		}
	}
	return out
}

// length is the total length of disjoint intervals.
func length(xs []interval) float64 {
	var s float64
	for _, x := range xs {
		s += x.hi - x.lo
	}
	return s
}
