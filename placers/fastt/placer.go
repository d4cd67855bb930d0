package fastt

import (
	"context"
	"errors"
	"fmt"
	"math"

	"placesim/engine"
	"placesim/placers"
)

var (
	_ placers.Reporter = (*FastT)(nil)
	_ placers.Placer   = (*FastT)(nil)
)

// Start strategies: the graph DPOS starts from (section 5.2).
const (
	// StartDataParallel replicates the model on every accelerator when it
	// fits one device (else the model's DAG), as FastT does.
	StartDataParallel = "data-parallel"
	// StartModel schedules the model's DAG itself.
	StartModel = "model"
)

// Data parallelism FastT rolls back to (option dp).
const (
	// DPAllReduce is today's data parallelism (the data-parallel placer:
	// ring all-reduce overlapped with the backward pass).
	DPAllReduce = "allreduce"
	// DPTF1 is the paper's baseline (the data-parallel-tf1 placer:
	// TensorFlow 1.x in-graph replication with a parameter device).
	DPTF1 = "tf1"
)

// DefaultProfileRounds is how often DPOS is re-run on a communication
// model refitted on its own strategy's profiled transfers.
const DefaultProfileRounds = 2

// DefaultMaxTrials bounds OS-DPOS's split search (DPOS runs) by default.
const DefaultMaxTrials = 48

// FastT is the placer of FastT: DPOS ("fastt-dpos"), or OS-DPOS
// ("fastt-os-dpos") when it splits ops. Options:
//
//	enforce-order=true|false   the schedule's order as priorities (default true;
//	                           section 6.1); with rollback=false, false gives the
//	                           same placement without priorities (the ablation of
//	                           section 6.3, Figure 2)
//	start=data-parallel|model  the graph DPOS starts from (default data-parallel)
//	rollback=true|false        keep the start strategy (data parallelism) or, for
//	                           OS-DPOS, the unsplit DPOS plan when it is faster in
//	                           the placer's own simulation (default true; section 4);
//	                           false: the strategy of lowest FT(o_exit) among DPOS,
//	                           DPOS with the replicas kept and OS-DPOS
//	dims=batch,channel         OS-DPOS: the split dimensions tried (default both)
//	max-trials=N               OS-DPOS: at most N DPOS runs in the split search
//	                           (default 48; 0: no bound)
//	profile-rounds=N           profile each DPOS strategy in simulation and refit
//	                           the communication model on its transfers, N times,
//	                           keeping the fastest strategy (default 2; 0: the
//	                           uncontended model only; section 4)
//	dp=allreduce|tf1           the data parallelism rollback compares with and
//	                           may keep: data-parallel's ring all-reduce
//	                           (default) or data-parallel-tf1 (section 6.2's
//	                           baseline, TensorFlow 1.x slim)
//	exchange=sum|allreduce     the replicated graph's gradient exchange: a sum on
//	                           one device (default; TensorFlow's in-graph
//	                           replication) or a ring all-reduce in the graph
//	bucket=BYTES, overlap=true|false   the data-parallel start plan's all-reduce
type FastT struct {
	name     string
	split    bool
	enforce  bool
	start    string
	rollback bool
	os       osConfig
	bucket   int64
	overlap  bool
	rounds   int
	dp       string
	exchange string
}

// NewDPOS makes the fastt-dpos placer (options: DPOSArgs).
func NewDPOS(a DPOSArgs) (placers.Placer, error) { return newFastT("fastt-dpos", false, a), nil }

// NewOSDPOS makes the fastt-os-dpos placer (options: OSDPOSArgs).
func NewOSDPOS(a OSDPOSArgs) (placers.Placer, error) {
	f := newFastT("fastt-os-dpos", true, a.DPOSArgs)
	f.os = osConfig{dims: a.Dims, maxTrials: a.MaxTrials}
	return f, nil
}

func newFastT(name string, split bool, a DPOSArgs) *FastT {
	return &FastT{name: name, split: split, os: osConfig{dims: Dims()}, enforce: a.EnforceOrder, rollback: a.Rollback,
		overlap: a.Overlap, rounds: a.ProfileRounds, bucket: int64(a.Bucket), start: a.Start, dp: a.DP, exchange: a.Exchange}
}

// Name implements placers.Placer.
func (f *FastT) Name() string { return f.name }

// MemoryAware implements placers.MemoryAware: DPOS places within each
// device's memory in FastT's memory model, and the strategies are played
// with the estimates before one is kept; when every strategy runs out of
// memory there, Place fails with placers.ErrDoesNotFit. (Without rollback
// the DPOS plan is not played: not memory-aware.)
func (f *FastT) MemoryAware() bool { return f.rollback }

// Place implements placers.Placer.
func (f *FastT) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	p, _, err := f.PlaceReport(ctx, req)
	return p, err
}

// PlaceReport implements placers.Reporter: the report's Value is FT(o_exit)
// of the returned schedule, the placer's own estimate of the step time (for
// a plan rolled back to data parallelism, its simulated step time).
func (f *FastT) PlaceReport(ctx context.Context, req *placers.Request) (*engine.Plan, *placers.Report, error) {
	if req == nil || req.Graph == nil || req.Cluster == nil || req.Estimates == nil {
		return nil, nil, fmt.Errorf("placement request needs a graph, a cluster and estimates")
	}
	if req.Estimates.Graph != req.Graph && (req.Estimates.Graph == nil || len(req.Estimates.Graph.Ops) != len(req.Graph.Ops)) {
		return nil, nil, fmt.Errorf("estimates are not for graph %q", req.Graph.Name)
	}
	if err := req.Graph.Validate(); err != nil {
		return nil, nil, err
	}
	cm, err := NewCostModel(req.Estimates)
	if err != nil {
		return nil, nil, err
	}
	rep := &placers.Report{Objective: "estimated step time FT(o_exit)"}
	w, note, err := f.startGraph(req, cm)
	if err != nil {
		return nil, nil, err
	}
	rep.Notes = append(rep.Notes, note)
	p0, err := newProblem(w, cm)
	if err != nil {
		return nil, nil, err
	}
	sc, err := dpos(ctx, p0)
	if err != nil && errors.Is(err, placers.ErrDoesNotFit) && w.replicas > 1 {
		// the replicas do not fit with the memory model: the model's DAG
		w = modelWork(req.Graph)
		rep.Notes = append(rep.Notes, "replicated graph does not fit: start from the model's DAG")
		if p0, err = newProblem(w, cm); err != nil {
			return nil, nil, err
		}
		sc, err = dpos(ctx, p0)
	}
	if err != nil {
		return nil, nil, err
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("DPOS: %d ops, FT(o_exit) %.6g s, critical path of %d ops", len(w.g.Ops), sc.finish, len(sc.cp)))
	if f.rounds > 0 {
		if cm, p0, sc, err = f.profileRounds(ctx, req, cm, p0, sc, rep); err != nil {
			return nil, nil, err
		}
	}
	cands := []candidate{{"DPOS", w, sc.times, sc.plan(f.enforce, req.Graph), sc.finish, sc}}
	if pp := pinnedProblem(p0, req); pp != nil {
		ps, err := dpos(ctx, pp)
		switch {
		case errors.Is(err, placers.ErrDoesNotFit):
			rep.Notes = append(rep.Notes, "DPOS with the replicas kept: does not fit")
		case err != nil:
			return nil, nil, err
		default:
			rep.Notes = append(rep.Notes, fmt.Sprintf("DPOS with the replicas kept: FT(o_exit) %.6g s", ps.finish))
			cands = append(cands, candidate{dposKeptName, w, ps.times, ps.plan(f.enforce, req.Graph), ps.finish, ps})
		}
	}
	if f.split {
		final, sp, trials, err := osdpos(ctx, cm, p0, sc, f.os)
		if err != nil {
			return nil, nil, err
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("OS-DPOS: %d splits after %d DPOS runs, FT(o_exit) %.6g s", len(sp), trials, final.finish))
		for _, s := range sp {
			rep.Notes = append(rep.Notes, "split "+s.String())
		}
		if final != sc {
			cands = append(cands, candidate{"OS-DPOS", final.w, final.times, final.plan(f.enforce, req.Graph), final.finish, final})
		}
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if c.ft < best.ft {
			best = c
		}
	}
	rep.Value = best.ft
	if f.rollback {
		best, err = f.rollBack(req, cm, cands, rep)
		if err != nil {
			return nil, nil, err
		}
	}
	if best.sc != nil && f.rounds > 0 {
		ft, _, err := cm.settle(best.sc, req.Graph)
		if err != nil {
			return nil, nil, fmt.Errorf("profile the %s strategy: %w", best.name, err)
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s profiled: FT(o_exit) %.6g s with the communication model refitted on its transfers (was %.6g s)", best.name, ft, best.ft))
		rep.Value = ft
	}
	return best.plan, rep, nil
}

// startGraph is the graph DPOS starts from: the data-parallel graph with a
// replica per accelerator (as many as the largest divisor of the batch not
// above their number) when the model fits one device in FastT's memory
// model, else the model's DAG.
func (f *FastT) startGraph(req *placers.Request, cm *CostModel) (*work, string, error) {
	g := req.Graph
	acc, _ := placers.Targets(req.Cluster)
	n := len(acc)
	if f.start == StartModel || n < 2 {
		return modelWork(g), "start: the model's DAG", nil
	}
	mem, reserve := memory(g)
	var total int64
	for _, m := range mem {
		total += m
	}
	capacity := int64(math.MaxInt64)
	for _, d := range acc {
		capacity = min(capacity, req.Cluster.Devices[d].Memory)
	}
	if total+reserve > capacity {
		return modelWork(g), fmt.Sprintf("start: the model's DAG (needs %d MiB, a device has %d MiB)", (total+reserve)>>20, capacity>>20), nil
	}
	if n = replicasFor(g.Batch, n); n < 2 {
		return modelWork(g), fmt.Sprintf("start: the model's DAG (batch %d does not divide among the accelerators)", g.Batch), nil
	}
	if f.exchange == ExchangeAllReduce {
		w, err := replicateAllReduce(g, n)
		if err != nil {
			return nil, "", err
		}
		return w, fmt.Sprintf("start: data-parallel graph, %d replicas, gradients ring all-reduced in the graph", n), nil
	}
	w, err := replicate(g, n)
	if err != nil {
		return nil, "", err
	}
	return w, fmt.Sprintf("start: data-parallel graph, %d replicas", n), nil
}

// dposKeptName names the strategy of DPOS run with the replicas kept.
const dposKeptName = "DPOS with the replicas kept"

// pinnedProblem is p (a data-parallel start graph) with every replica's
// ops kept on the accelerator the data-parallel start gives them (replica
// r on the r-th accelerator, as data-parallel-tf1 places them), so that
// DPOS places and orders only the ops the replicas share: the variables,
// the gradient sums and the updates, which TensorFlow's data parallelism
// keeps on one parameter device. This is placesim's reading of FastT's
// start from data parallelism (section 4: "we use data parallelism as
// the starting strategy ... try out different placements"), given to
// DPOS as colocation constraints, which its device placer honours
// (section 6.1); it is one more strategy the activation rule may keep.
// nil when p's graph is not replicated.
func pinnedProblem(p *problem, req *placers.Request) *problem {
	if p.w.replicas < 2 {
		return nil
	}
	acc, _ := placers.Targets(req.Cluster)
	if len(acc) < p.w.replicas {
		return nil
	}
	q := *p
	q.pin = make([]int, len(p.w.g.Ops))
	for v := range q.pin {
		q.pin[v] = -1
		if r := p.w.info[v].replica; r >= 0 && !p.t.NeedsCPU(v) {
			q.pin[v] = acc[r]
		}
	}
	return &q
}
