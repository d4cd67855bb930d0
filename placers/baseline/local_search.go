package baseline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/tarnawski/maxload"
)

var (
	_ placers.Placer   = (*LocalSearch)(nil)
	_ placers.Reporter = (*LocalSearch)(nil)
)

// LocalSearch is the local-search baseline of Tarnawski et al. (section 6,
// after Michiels, Korst and Aarts): start from a random split, repeatedly
// make the best single-node reassignment until none improves, restart
// (10 times by default) and keep the best split. A node is a colocation
// unit; the objective is the max-load of the paper's cost model (package
// maxload), ties broken by the number of devices at the max-load (so that
// one of several equally loaded bottlenecks may be relieved at a time).
// Moves keep every device within its memory. The splits are usually
// non-contiguous.
type LocalSearch struct {
	restarts int
	maxMoves int
	pipe     maxload.PipelineOptions
}

// NewLocalSearch makes local-search. Options: restarts (default 10),
// max-moves per restart (default 100000), pipeline
// (gpipe|1f1b|pipedream|none, default 1f1b) and micro-batches.
func NewLocalSearch(opts placers.Options) (placers.Placer, error) {
	for k := range opts {
		switch k {
		case "restarts", "max-moves", "pipeline", "micro-batches":
		default:
			return nil, fmt.Errorf("%w: local-search has no option %q (valid: restarts, max-moves, pipeline, micro-batches)", placers.ErrBadOption, k)
		}
	}
	r, err := opts.Int("restarts", 10, 1, 1<<20)
	if err != nil {
		return nil, err
	}
	mm, err := opts.Int("max-moves", 100000, 1, 1<<30)
	if err != nil {
		return nil, err
	}
	po, err := maxload.ParsePipeline(opts, "1f1b")
	if err != nil {
		return nil, err
	}
	return &LocalSearch{restarts: r, maxMoves: mm, pipe: po}, nil
}

// Name implements placers.Placer.
func (*LocalSearch) Name() string { return "local-search" }

// MemoryAware implements placers.MemoryAware: every move keeps each device
// within its memory, and a start that fits none fails with
// placers.ErrDoesNotFit.
func (*LocalSearch) MemoryAware() bool { return true }

// Place implements placers.Placer.
func (ls *LocalSearch) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	plan, _, err := ls.PlaceReport(ctx, req)
	return plan, err
}

// PlaceReport implements placers.Reporter.
func (ls *LocalSearch) PlaceReport(ctx context.Context, req *placers.Request) (*engine.Plan, *placers.Report, error) {
	if _, err := req.Graph.TopoOrder(); err != nil {
		return nil, nil, fmt.Errorf("local-search: %w", err)
	}
	m, err := maxload.New(req)
	if err != nil {
		return nil, nil, err
	}
	unitOf, units := placers.Groups(req.Graph)
	um := m.Contract(unitOf, len(units)) // a node per colocation unit
	rng := rand.New(rand.NewPCG(req.Seed, 0x10ca1))
	var best []int
	bestKey := [2]float64{math.Inf(1), math.Inf(1)}
	moves := 0
	for r := 0; r < ls.restarts; r++ {
		start, err := randomStart(um, rng)
		if err != nil {
			return nil, nil, fmt.Errorf("infeasible: local-search found no device with room for op %q (%d bytes with its colocation group) on cluster %q: %w",
				m.Graph.Ops[units[err.unit][0]].Name, um.Size[err.unit], m.Cluster.Name, placers.ErrDoesNotFit)
		}
		s := um.NewState(start)
		n, cerr := ls.descend(ctx, um, s)
		if cerr != nil {
			return nil, nil, cerr
		}
		moves += n
		// score from scratch: the state's sums drift by rounding
		if key := score(um, s.Assign); less(key, bestKey) {
			bestKey, best = key, append([]int(nil), s.Assign...)
		}
	}
	assign := make([]int, len(req.Graph.Ops))
	for op, u := range unitOf {
		assign[op] = best[u]
	}
	best = assign
	notes := []string{fmt.Sprintf("%d restarts, %d moves in all", ls.restarts, moves)}
	rep, err := m.Report(best, "max-load", notes)
	if err != nil {
		return nil, nil, fmt.Errorf("local-search: internal error: %w", err)
	}
	plan := m.Plan(best)
	ls.pipe.Apply(plan, m.Graph.Batch)
	return plan, rep, nil
}

// noRoom names a unit that fits no device.
type noRoom struct{ unit int }

// randomStart puts each unit (a node of the contracted model) on a
// uniformly drawn device among those that can run it and still have room.
func randomStart(um *maxload.Model, rng *rand.Rand) ([]int, *noRoom) {
	nd := um.K() + um.L()
	assign := make([]int, len(um.Size))
	mem := make([]int64, nd)
	for u := range assign {
		placed := false
		for _, d := range rng.Perm(nd) {
			if !fits(um, u, d, mem[d]+um.Size[u]) {
				continue
			}
			assign[u] = d
			mem[d] += um.Size[u]
			placed = true
			break
		}
		if !placed {
			return nil, &noRoom{u}
		}
	}
	return assign, nil
}

// fits reports whether unit u can run on device d with d's memory at mem.
func fits(um *maxload.Model, u, d int, mem int64) bool {
	if um.IsAcc(d) {
		return mem <= um.AccMem && !math.IsInf(um.AccTime[u], 1)
	}
	return mem <= um.CPUMem && !math.IsInf(um.CPUTime[u], 1)
}

// descend makes best-improvement single-unit moves until none improves
// the key (max-load, number of devices at the max-load) and returns the
// number of moves. Only a move off a device at the max-load, or onto one
// by a unit that shares a hyperedge with it, can lower the max-load or
// that count (a device's load changes only with its own units and the
// cuts of its hyperedges), so only those moves are tried.
func (ls *LocalSearch) descend(ctx context.Context, um *maxload.Model, s *maxload.State) (int, error) {
	nd := um.K() + um.L()
	n := len(um.Size)
	loads := make([]float64, nd)
	mem := make([]int64, nd)
	for u, d := range s.Assign {
		mem[d] += um.Size[u]
	}
	s.Loads(loads)
	cur := key(loads)
	atMax := make([]bool, nd)
	touches := make([]bool, nd) // scratch: devices a unit's hyperedges reach
	try := func(u, d int, bestKey *[2]float64, bestU, bestD *int) {
		from := s.Assign[u]
		s.Move(u, d)
		s.Loads(loads)
		if k := key(loads); less(k, *bestKey) && improves(k, cur) {
			*bestKey, *bestU, *bestD = k, u, d
		}
		s.Move(u, from)
	}
	for moves := 0; moves < ls.maxMoves; moves++ {
		if err := ctx.Err(); err != nil {
			return moves, err
		}
		for d, l := range loads {
			atMax[d] = l >= cur[0]*(1-keyEps)
		}
		bestKey, bestU, bestD := cur, -1, -1
		for u := 0; u < n; u++ {
			from := s.Assign[u]
			if atMax[from] {
				for d := 0; d < nd; d++ {
					if d != from && fits(um, u, d, mem[d]+um.Size[u]) {
						try(u, d, &bestKey, &bestU, &bestD)
					}
				}
				continue
			}
			clear(touches)
			for _, h := range um.CommOf[u] {
				for _, v := range um.Comm[h].Ops {
					touches[s.Assign[v]] = true
				}
			}
			for d := 0; d < nd; d++ {
				if d != from && atMax[d] && touches[d] && fits(um, u, d, mem[d]+um.Size[u]) {
					try(u, d, &bestKey, &bestU, &bestD)
				}
			}
		}
		if bestU < 0 {
			return moves, nil
		}
		mem[s.Assign[bestU]] -= um.Size[bestU]
		mem[bestD] += um.Size[bestU]
		s.Move(bestU, bestD)
		s.Loads(loads)
		cur = bestKey
	}
	return ls.maxMoves, nil
}

// keyEps is the relative margin within which loads count as equal, so that
// rounding in the incremental sums neither invents nor hides a gain.
const keyEps = 1e-12

// key is (max-load, number of devices within keyEps of it).
func key(loads []float64) [2]float64 {
	var mx float64
	for _, l := range loads {
		mx = math.Max(mx, l)
	}
	n := 0
	for _, l := range loads {
		if l >= mx*(1-keyEps) {
			n++
		}
	}
	return [2]float64{mx, float64(n)}
}

func less(a, b [2]float64) bool { return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]) }

// improves asks for a gain above rounding noise: a lower max-load, or as
// high a max-load on fewer devices.
func improves(k, cur [2]float64) bool {
	if k[0] < cur[0]*(1-keyEps) {
		return true
	}
	return k[0] <= cur[0]*(1+keyEps) && k[1] < cur[1]
}

func score(m *maxload.Model, assign []int) [2]float64 {
	loads, _ := m.Loads(assign)
	return key(loads)
}
