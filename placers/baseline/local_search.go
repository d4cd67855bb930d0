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
// maxload), ties broken by the total load, so that moves that only cut
// communication off non-bottleneck devices still count. Moves keep every
// device within its memory. The splits are usually non-contiguous.
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
	_, units := placers.Groups(req.Graph)
	rng := rand.New(rand.NewPCG(req.Seed, 0x10ca1))
	var best []int
	bestKey := [2]float64{math.Inf(1), math.Inf(1)}
	moves := 0
	for r := 0; r < ls.restarts; r++ {
		start, err := randomStart(m, units, rng)
		if err != nil {
			return nil, nil, err
		}
		s := m.NewState(start)
		n, err := ls.descend(ctx, m, s, units)
		if err != nil {
			return nil, nil, err
		}
		moves += n
		// score from scratch: the state's sums drift by rounding
		if key := score(m, s.Assign); less(key, bestKey) {
			bestKey, best = key, append([]int(nil), s.Assign...)
		}
	}
	notes := []string{fmt.Sprintf("%d restarts, %d moves in all", ls.restarts, moves)}
	rep, err := m.Report(best, "max-load", notes)
	if err != nil {
		return nil, nil, fmt.Errorf("local-search: internal error: %w", err)
	}
	plan := m.Plan(best)
	ls.pipe.Apply(plan)
	return plan, rep, nil
}

// randomStart puts each unit on a uniformly drawn device among those that
// can run it and still have room, or fails naming a unit that fits none.
func randomStart(m *maxload.Model, units [][]int, rng *rand.Rand) ([]int, error) {
	nd := m.K() + m.L()
	assign := make([]int, len(m.Graph.Ops))
	mem := make([]int64, nd)
	for _, u := range units {
		var size int64
		for _, op := range u {
			size += m.Size[op]
		}
		placed := false
		for _, d := range rng.Perm(nd) {
			if !fits(m, u, d, mem[d]+size) {
				continue
			}
			for _, op := range u {
				assign[op] = d
			}
			mem[d] += size
			placed = true
			break
		}
		if !placed {
			return nil, fmt.Errorf("infeasible: local-search found no device with room for op %q (%d bytes with its colocation group) on cluster %q: %w",
				m.Graph.Ops[u[0]].Name, size, m.Cluster.Name, placers.ErrDoesNotFit)
		}
	}
	return assign, nil
}

func fits(m *maxload.Model, unit []int, d int, mem int64) bool {
	limit := m.CPUMem
	if m.IsAcc(d) {
		limit = m.AccMem
	}
	if mem > limit {
		return false
	}
	for _, op := range unit {
		t := m.CPUTime[op]
		if m.IsAcc(d) {
			t = m.AccTime[op]
		}
		if math.IsInf(t, 1) {
			return false
		}
	}
	return true
}

// descend makes best-improvement single-unit moves until none improves
// (max-load, then total load) and returns the number of moves.
func (ls *LocalSearch) descend(ctx context.Context, m *maxload.Model, s *maxload.State, units [][]int) (int, error) {
	nd := m.K() + m.L()
	loads := make([]float64, nd)
	mem := make([]int64, nd)
	for op, d := range s.Assign {
		mem[d] += m.Size[op]
	}
	sizes := make([]int64, len(units))
	for i, u := range units {
		for _, op := range u {
			sizes[i] += m.Size[op]
		}
	}
	s.Loads(loads)
	cur := key(loads)
	for moves := 0; moves < ls.maxMoves; moves++ {
		if err := ctx.Err(); err != nil {
			return moves, err
		}
		bestKey, bestU, bestD := cur, -1, -1
		for ui, u := range units {
			from := s.Assign[u[0]]
			for d := 0; d < nd; d++ {
				if d == from || !fits(m, u, d, mem[d]+sizes[ui]) {
					continue
				}
				for _, op := range u {
					s.Move(op, d)
				}
				s.Loads(loads)
				if k := key(loads); less(k, bestKey) && improves(k, cur) {
					bestKey, bestU, bestD = k, ui, d
				}
				for _, op := range u {
					s.Move(op, from)
				}
			}
		}
		if bestU < 0 {
			return moves, nil
		}
		u := units[bestU]
		mem[s.Assign[u[0]]] -= sizes[bestU]
		mem[bestD] += sizes[bestU]
		for _, op := range u {
			s.Move(op, bestD)
		}
		cur = bestKey
	}
	return ls.maxMoves, nil
}

// key is (max-load, total load).
func key(loads []float64) [2]float64 {
	var mx, sum float64
	for _, l := range loads {
		mx = math.Max(mx, l)
		sum += l
	}
	return [2]float64{mx, sum}
}

func less(a, b [2]float64) bool { return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]) }

// improves asks for a gain above rounding noise, so the descent ends.
func improves(k, cur [2]float64) bool {
	const eps = 1e-12
	if k[0] < cur[0]*(1-eps) {
		return true
	}
	return k[0] <= cur[0]*(1+eps) && k[1] < cur[1]*(1-eps)
}

func score(m *maxload.Model, assign []int) [2]float64 {
	loads, _ := m.Loads(assign)
	return key(loads)
}
