package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"placesim/devices"
	"placesim/engine"
	"placesim/engine/llm"
	"placesim/parallel"
	"placesim/placers"
	"placesim/reports"
	"placesim/runresult"
	"placesim/workloads/zoo"
)

// SearchSpace bounds the layouts SearchLayouts enumerates. Each list is
// the values tried; a zero SearchSpace is DefaultSearchSpace's.
type SearchSpace struct {
	// MaxTP, MaxCP bound the tensor- and context-parallel sizes (powers
	// of two; Megatron-LM keeps TP within an NVLink domain, 8 on a DGX).
	MaxTP, MaxCP int
	// MaxPP bounds the pipeline size (0: the number of layers).
	MaxPP int
	// MaxVP bounds the virtual stages per pipeline rank.
	MaxVP int
	// MicroBatches are the micro-batch sizes tried.
	MicroBatches []int
	// Recompute are the recomputation modes tried.
	Recompute []parallel.Recompute
	// Sharding are the optimizer shardings tried. ZeRO-2 and ZeRO-3 are
	// tried only with pp = 1: Megatron-LM's distributed optimizer is
	// ZeRO-1, and DeepSpeed refuses ZeRO-2/3 with pipeline parallelism
	// (deepspeed/runtime/pipe/engine.py asserts zero stage < 2).
	Sharding []parallel.Sharding
	// Planners are the stage planners tried (PlannerEven: Megatron's
	// split; any placer name of the registry).
	Planners []string
	// NoTPOverlap keeps the tensor-parallel collectives of every
	// candidate off Transformer Engine's userbuffers (Megatron-LM without
	// --tp-comm-overlap); by default a layout with tp > 1 runs sequence
	// parallelism with its TP communication overlapped, as NeMo's
	// performance recipes run it.
	NoTPOverlap bool
}

// DefaultSearchSpace: TP and CP up to 8, any PP, VP up to 8, micro-batch
// sizes 1, 2, 4, every recomputation mode, no sharding and ZeRO-1 (and
// ZeRO-2/3 where pp = 1), Megatron's even stage split.
func DefaultSearchSpace() SearchSpace {
	return SearchSpace{MaxTP: 8, MaxCP: 8, MaxVP: 8,
		MicroBatches: []int{1, 2, 4},
		Recompute:    []parallel.Recompute{parallel.RecomputeNone, parallel.RecomputeSelective, parallel.RecomputeFull},
		Sharding:     []parallel.Sharding{parallel.ShardNone, parallel.ShardZeRO1, parallel.ShardZeRO2, parallel.ShardZeRO3},
		Planners:     []string{PlannerEven}}
}

// SearchRequest is one layout search: a model, a GPU count, a global
// batch and a system.
type SearchRequest struct {
	// Workload is the model's spec (zoo:NAME[?seq=N...]), Model its value.
	Workload string
	Model    zoo.LLM
	// Cluster is the system (at least GPUs accelerators); its name is
	// recorded with every candidate.
	Cluster *devices.Cluster
	// GPUs is the number of GPUs every layout uses (TP·PP·CP·DP).
	GPUs int
	// GlobalBatch is sequences per iteration.
	GlobalBatch int
	// Precision of every layout (bf16 when empty).
	Precision parallel.Precision
	// Space bounds the enumeration.
	Space SearchSpace
}

// Candidate is one layout of a search, with the stage planner that
// splits its layers.
type Candidate struct {
	Index   int             `json:"index"`
	Layout  parallel.Layout `json:"-"`
	Planner string          `json:"planner"`
}

// SearchCounts says how many layouts each step kept.
type SearchCounts struct {
	// Enumerated is the grid's layouts whose sizes multiply to the GPU
	// count and divide the model (heads, FFN, sequence, experts, layers)
	// and the global batch; Invalid those the job's own checks refused
	// anyway (the first reason in InvalidReason).
	Enumerated, Invalid int
	InvalidReason       string
	// Pruned is the candidates the memory closed form (llm.MemoryOf)
	// rules out before simulating; Simulated the rest.
	Pruned, Simulated int
	// OOM is the simulated candidates that still ran out of memory (0
	// while the simulation's memory is the closed form's); Failed those
	// whose simulation failed.
	OOM, Failed int
}

// SearchResult is a search's candidates, ranked.
type SearchResult struct {
	Counts SearchCounts
	// Records holds every candidate (this shard's), by index: pruned ones
	// carry the OOM verdict and NotComparable, simulated ones the
	// iteration time and LLM figures.
	Records []Record
	// Ranked is the indexes into Records of the simulated candidates that
	// fit, fastest first (ties broken by lower peak memory, then index).
	Ranked []int
}

// SearchOptions run a search.
type SearchOptions struct {
	// Dir, when set, holds the journal (journal.jsonl, or
	// journal-I-of-N.jsonl for a shard) so that a killed search resumes:
	// the same journal and input hashes as a scenario run.
	Dir string
	// Shard, when N > 1, simulates only candidates with index % N == I.
	Shard Shard
	// Workers bounds parallel simulations (0: GOMAXPROCS).
	Workers int
	// Registry resolves stage planners other than PlannerEven.
	Registry *placers.Registry
	// Progress, if set, is called after each simulated candidate.
	Progress func(done, total int)
	// Notice, if set, is told about journaled candidates re-simulated
	// because their inputs changed.
	Notice func(msg string)
}

func powersOfTwoUpTo(n int) []int {
	var out []int
	for v := 1; v <= n; v *= 2 {
		out = append(out, v)
	}
	return out
}

func divisors(n int) []int {
	var out []int
	for d := 1; d <= n; d++ {
		if n%d == 0 {
			out = append(out, d)
		}
	}
	return out
}

// validate checks the request; errors name the field and its range.
func (r *SearchRequest) validate() error {
	if r.Cluster == nil {
		return fmt.Errorf("search: no cluster")
	}
	if r.GPUs < 1 || r.GPUs > len(r.Cluster.Devices) {
		return fmt.Errorf("search: gpus = %d (valid range: 1 to %d, the GPUs of %s)", r.GPUs, len(r.Cluster.Devices), r.Cluster.Name)
	}
	if r.GlobalBatch < 1 || r.GlobalBatch > 1<<20 {
		return fmt.Errorf("search: gbs = %d (valid range: 1 to %d)", r.GlobalBatch, 1<<20)
	}
	if err := r.Model.Validate(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	s := &r.Space
	for _, f := range []struct {
		name string
		v    int
	}{{"max-tp", s.MaxTP}, {"max-cp", s.MaxCP}, {"max-vp", s.MaxVP}} {
		if f.v < 1 || f.v > 1024 {
			return fmt.Errorf("search: %s = %d (valid range: 1 to 1024)", f.name, f.v)
		}
	}
	if s.MaxPP < 0 {
		return fmt.Errorf("search: max-pp = %d (valid range: 0 for the number of layers, or >= 1)", s.MaxPP)
	}
	if len(s.MicroBatches) == 0 || len(s.Recompute) == 0 || len(s.Sharding) == 0 || len(s.Planners) == 0 {
		return fmt.Errorf("search: empty list of micro-batch sizes, recomputation modes, shardings or planners (valid: at least one of each)")
	}
	for _, m := range s.MicroBatches {
		if m < 1 || m > 1<<20 {
			return fmt.Errorf("search: micro-batch size %d (valid range: 1 to %d)", m, 1<<20)
		}
	}
	return nil
}

// EnumerateLayouts lists the candidate layouts of r in a fixed order
// (TP, CP, PP, VP, EP, micro-batch size, recomputation, sharding,
// planner, each ascending in the space's order). Every layout uses
// exactly r.GPUs GPUs, passes parallel.Layout.Validate and the model's
// divisibility (TP divides heads, KV heads and FFN; the sequence splits
// over 2·CP and, with sequence parallelism, over TP; EP divides the
// experts; at least one layer per virtual stage, an even split of the
// layers when VP > 1 as Megatron-LM's interleaving requires). Sequence
// parallelism is on whenever TP > 1 (Korthikanti et al. 2022, section
// 4.2.2: it keeps the same communication volume and cuts activation
// memory); the schedule is 1F1B, interleaved when VP > 1 (GPipe holds
// more activations for the same bubble, Narayanan et al. SC'21
// section 2.2.1).
func EnumerateLayouts(r *SearchRequest) ([]Candidate, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	m := r.Model
	s := r.Space
	prec := r.Precision
	if prec == "" {
		prec = parallel.BF16
	}
	maxPP := s.MaxPP
	if maxPP == 0 || maxPP > m.Layers {
		maxPP = m.Layers
	}
	var out []Candidate
	for _, tp := range powersOfTwoUpTo(min(s.MaxTP, r.GPUs)) {
		if m.Heads%tp != 0 || m.FFN%tp != 0 || (m.KVHeads%tp != 0 && tp%m.KVHeads != 0) {
			continue
		}
		for _, cp := range powersOfTwoUpTo(min(s.MaxCP, r.GPUs/tp)) {
			if r.GPUs%(tp*cp) != 0 || (cp > 1 && m.Seq%(2*cp) != 0) || (tp > 1 && (m.Seq/cp)%tp != 0) {
				continue
			}
			for _, pp := range divisors(r.GPUs / (tp * cp)) {
				if pp > maxPP {
					continue
				}
				dp := r.GPUs / (tp * cp * pp)
				if r.GlobalBatch%dp != 0 {
					continue
				}
				for vp := 1; vp <= s.MaxVP; vp++ {
					if vp > 1 && (pp == 1 || (m.Layers%(pp*vp) != 0 && (m.Layers+2)%(pp*vp) != 0)) {
						continue
					}
					eps := []int{1}
					if m.MoE() {
						eps = nil
						for _, ep := range divisors(dp * cp) {
							if m.Experts%ep == 0 {
								eps = append(eps, ep)
							}
						}
					}
					for _, ep := range eps {
						for _, mbs := range s.MicroBatches {
							if r.GlobalBatch%(mbs*dp) != 0 {
								continue
							}
							for _, rc := range s.Recompute {
								for _, sh := range s.Sharding {
									if sh >= parallel.ShardZeRO2 && pp > 1 {
										continue
									}
									if sh != parallel.ShardNone && dp*cp == 1 {
										continue // nothing to shard over
									}
									l := parallel.Layout{TP: tp, PP: pp, VP: vp, CP: cp, EP: ep, DP: dp,
										SequenceParallel: tp > 1, TPOverlap: tp > 1 && !s.NoTPOverlap, Sharding: sh, Recompute: rc,
										MicroBatch: mbs, GlobalBatch: r.GlobalBatch, Precision: prec, Schedule: parallel.Schedule1F1B}
									if l.Validate() != nil {
										continue
									}
									for _, pl := range s.Planners {
										out = append(out, Candidate{Index: len(out), Layout: l, Planner: pl})
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return out, nil
}

// searchRegime is the regime string a candidate's record carries.
func searchRegime(l parallel.Layout) string { return "layout " + l.String() }

// point is the candidate as a study point (its key in the journal and
// the results).
func (c Candidate) point(r *SearchRequest) Point {
	return Point{Index: c.Index, Workload: r.Workload, Cluster: r.Cluster.Name, Placer: c.Planner, Regime: searchRegime(c.Layout)}
}

// SearchLayouts enumerates r's layouts, rules out with the memory closed
// form those that cannot fit, simulates the rest (this shard's) in
// parallel and ranks them. A journal in o.Dir makes it resumable.
func SearchLayouts(ctx context.Context, r *SearchRequest, o SearchOptions) (*SearchResult, error) {
	if o.Workers < 0 || o.Workers > MaxWorkers {
		return nil, fmt.Errorf("workers = %d (valid range: 0 for the number of cores, up to %d)", o.Workers, MaxWorkers)
	}
	cands, err := EnumerateLayouts(r)
	if err != nil {
		return nil, err
	}
	for _, pl := range r.Space.Planners {
		if pl == PlannerEven {
			continue
		}
		if o.Registry == nil {
			return nil, fmt.Errorf("search: planner %q needs a placer registry", pl)
		}
		if _, err := o.Registry.Entry(pl); err != nil {
			return nil, fmt.Errorf("search: planner %q: %w", pl, err)
		}
	}
	res := &SearchResult{}
	res.Counts.Enumerated = len(cands)
	all := make([]Point, len(cands))
	for i, c := range cands {
		all[i] = c.point(r)
	}
	var mine []Candidate
	for _, c := range cands {
		if o.Shard.N <= 1 || c.Index%o.Shard.N == o.Shard.I {
			mine = append(mine, c)
		}
	}
	records := make(map[int]Record, len(mine))
	// rule out by the closed form, before any simulation
	var todo []Candidate
	for _, c := range mine {
		rec := Record{Point: all[c.Index]}
		j := &llm.Job{Model: r.Model, Layout: c.Layout, Cluster: r.Cluster}
		mem, err := llm.MemoryOf(j)
		if err != nil {
			res.Counts.Invalid++
			if res.Counts.InvalidReason == "" {
				res.Counts.InvalidReason = fmt.Sprintf("%s: %v", c.Layout, err)
			}
			rec.NotComparable = notComparableInvalid + err.Error()
			records[c.Index] = rec
			continue
		}
		if oom := closedFormOOM(mem); oom != nil {
			res.Counts.Pruned++
			rec.OOM = oom
			rec.NotComparable = notComparablePruned
			rec.PeakMemory, rec.Capacity = memPeaks(mem)
			records[c.Index] = rec
			continue
		}
		todo = append(todo, c)
	}
	// journal: the scenario runner's, keyed by the same input hashes
	var jf *os.File
	done := map[int]journalLine{}
	want := map[int]PointInputs{}
	if o.Dir != "" {
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("search directory: %w", err)
		}
		settings, _ := json.Marshal(struct {
			GPUs, GlobalBatch int
			Precision         parallel.Precision
			Devices           int
		}{r.GPUs, r.GlobalBatch, r.Precision, len(r.Cluster.Devices)})
		cache := newInputCache()
		version := Version()
		for _, c := range todo {
			want[c.Index] = PointInputs{Version: version, Workload: cache.specHash(r.Workload), Cluster: cache.specHash(r.Cluster.Name), Settings: hashOf(settings, []byte(all[c.Index].Key()))}
		}
		ro := RunOptions{Dir: o.Dir, Shard: o.Shard}
		var stale []staleNote
		jf, done, stale, err = openJournal(ro.journal(), all, want)
		if err != nil {
			return nil, err
		}
		defer jf.Close()
		if len(stale) > 0 && o.Notice != nil {
			o.Notice(staleMessage(stale))
		}
	}
	var run []Candidate
	for _, c := range todo {
		if l, ok := done[c.Index]; ok {
			records[c.Index] = l.Record
			continue
		}
		run = append(run, c)
	}
	finished := len(todo) - len(run)
	pool := workPool[Candidate]{Workers: o.Workers,
		Work: func(c Candidate) (journalLine, bool) {
			line := journalLine{Record: simulateCandidate(ctx, r, c, all[c.Index], o.Registry)}
			if jf != nil {
				in := want[c.Index]
				line.Inputs = &in
			}
			return line, true
		},
		Done: func(c Candidate, line journalLine) {
			records[c.Index] = line.Record
			finished++
			if o.Progress != nil {
				o.Progress(finished, len(todo))
			}
		}}
	if jf != nil {
		pool.Journal = jf // a nil *os.File in the interface would not be nil
	}
	if err := pool.run(ctx, run); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("search interrupted (%d of %d candidates simulated; re-run into the same output folder to resume): %w", finished, len(todo), err)
	}
	res.Counts.Simulated = len(todo)
	for _, c := range mine {
		res.Records = append(res.Records, records[c.Index])
	}
	for _, c := range todo {
		switch rec := records[c.Index]; {
		case rec.Error != "":
			res.Counts.Failed++
		case rec.OOM != nil:
			res.Counts.OOM++
		}
	}
	res.Ranked = RankSearch(res.Records)
	return res, nil
}

// The NotComparable of candidates not simulated.
const (
	notComparableInvalid = "invalid job: "
	notComparablePruned  = "ruled out by the memory closed form before simulating: does not fit"
)

// CountSearch counts a search's records by outcome (Enumerated is their
// number).
func CountSearch(recs []Record) SearchCounts {
	c := SearchCounts{Enumerated: len(recs)}
	for _, r := range recs {
		switch {
		case strings.HasPrefix(r.NotComparable, notComparableInvalid):
			c.Invalid++
			if c.InvalidReason == "" {
				c.InvalidReason = r.Regime + ": " + strings.TrimPrefix(r.NotComparable, notComparableInvalid)
			}
		case r.NotComparable == notComparablePruned:
			c.Pruned++
		default:
			c.Simulated++
			if r.Error != "" {
				c.Failed++
			} else if r.OOM != nil {
				c.OOM++
			}
		}
	}
	return c
}

// RankSearch orders the records that simulated and fit: lower iteration
// time first, then lower peak memory, then lower index (deterministic).
func RankSearch(recs []Record) []int {
	var idx []int
	for i, r := range recs {
		if r.Error == "" && r.OOM == nil && r.NotComparable == "" && r.LLM != nil {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := recs[idx[a]], recs[idx[b]]
		if x.StepTime != y.StepTime {
			return x.StepTime < y.StepTime
		}
		if x.MaxPeak() != y.MaxPeak() {
			return x.MaxPeak() < y.MaxPeak()
		}
		return x.Index < y.Index
	})
	return idx
}

// Distinct keeps, of ranked (RankSearch's order), the first (fastest)
// record of each distinct set of sizes (tp, pp, vp, cp, ep, dp,
// micro-batch size): the best variant (recomputation, sharding, planner)
// of each layout.
func Distinct(recs []Record, ranked []int) []int {
	seen := map[string]bool{}
	var out []int
	for _, i := range ranked {
		k := sizesKey(recs[i].Regime)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, i)
	}
	return out
}

// sizesKey is the tp..mbs part of a record's layout.
func sizesKey(regime string) string {
	l, err := parallel.Parse(strings.TrimPrefix(regime, "layout "))
	if err != nil {
		return regime
	}
	return fmt.Sprintf("tp=%d,pp=%d,vp=%d,cp=%d,ep=%d,dp=%d,mbs=%d", l.TP, l.PP, l.VP, l.CP, l.EP, l.DP, l.MicroBatch)
}

func memPeaks(mem []llm.Memory) (peak, capacity []int64) {
	for _, m := range mem {
		peak = append(peak, m.Peak)
		capacity = append(capacity, m.Capacity)
	}
	return peak, capacity
}

// closedFormOOM is the first pipeline rank whose closed-form peak
// exceeds its device's memory, as an engine.OOM (nil when all fit).
func closedFormOOM(mem []llm.Memory) *engine.OOM {
	for _, m := range mem {
		if m.Peak > m.Capacity {
			return &engine.OOM{Device: m.Rank, DeviceName: m.Device, Op: -1, OpName: m.PeakAt, What: "memory closed form (pipeline rank peak)",
				Requested: m.Peak, Capacity: m.Capacity}
		}
	}
	return nil
}

// simulateCandidate plans the candidate's stages and simulates it; every
// failure is in the record.
func simulateCandidate(ctx context.Context, r *SearchRequest, c Candidate, p Point, reg *placers.Registry) (rec Record) {
	rec.Point = p
	defer func() {
		if e := recover(); e != nil {
			rec.Error = fmt.Sprintf("internal error (panic) simulating %s: %v", c.Layout, e)
		}
	}()
	j := &llm.Job{Model: r.Model, Layout: c.Layout, Cluster: r.Cluster}
	if c.Planner != PlannerEven {
		st, _, err := PlanStages(ctx, reg, c.Planner, j)
		if err != nil {
			rec.Error = fmt.Sprintf("planner %s: %v", c.Planner, err)
			return rec
		}
		j.Stages, j.Planner = st, c.Planner
	}
	out, err := llm.Simulate(j)
	if err != nil {
		rec.Error = err.Error()
		return rec
	}
	rec = LayoutRecord(p, j, out)
	if err := checkPlausible(out.IterationTime, r.Workload, r.Cluster.Name); err != nil {
		rec.StepTime, rec.Throughput, rec.LLM = 0, 0, nil
		rec.Error = err.Error()
	}
	return rec
}

// LLMFigures are a large-model record's figures (runresult.LLMFigures).
type LLMFigures = runresult.LLMFigures

// SearchResultsFile is the results file of a search (or of a shard).
func SearchResultsFile(dir string, sh Shard) string {
	return (&RunOptions{Dir: dir, Shard: sh}).ResultsFile()
}

// MergeSearch reads every shard's results file of a search in dir
// (results-I-of-N.json) and checks that, together, they hold each of the
// n candidates exactly once, each record's point matching the
// enumeration's (pts); it returns the records in index order.
func MergeSearch(dir string, pts []Point) ([]Record, error) {
	files, err := filepath.Glob(filepath.Join(dir, "results-*-of-*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("merge: no shard results (results-I-of-N.json) in %s", dir)
	}
	slices.Sort(files)
	recs := make([]*Record, len(pts))
	for _, f := range files {
		res, err := ReadResults(f)
		if err != nil {
			return nil, err
		}
		for k := range res.Records {
			rec := res.Records[k]
			if rec.Index < 0 || rec.Index >= len(pts) || rec.Point.Key() != pts[rec.Index].Key() {
				return nil, fmt.Errorf("merge: %s: record %d (index %d) is not candidate %d of this search (other flags?)", f, k, rec.Index, rec.Index)
			}
			if recs[rec.Index] != nil {
				return nil, fmt.Errorf("merge: %s: candidate %d given twice", f, rec.Index)
			}
			recs[rec.Index] = &rec
		}
	}
	var out []Record
	var missing []string
	for i, r := range recs {
		if r == nil {
			missing = append(missing, fmt.Sprint(i))
			continue
		}
		out = append(out, *r)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("merge: %d of %d candidates missing from %s (first: %s); run the missing shards", len(missing), len(pts), dir, strings.Join(missing[:min(5, len(missing))], ", "))
	}
	return out, nil
}

// SearchPoints are the points of r's candidates (for MergeSearch).
func SearchPoints(r *SearchRequest) ([]Point, error) {
	cands, err := EnumerateLayouts(r)
	if err != nil {
		return nil, err
	}
	pts := make([]Point, len(cands))
	for i, c := range cands {
		pts[i] = c.point(r)
	}
	return pts, nil
}

// ErrNoFit is returned when no candidate of a search fits.
var ErrNoFit = errors.New("no layout fits")

// PublishedIn finds the candidate whose layout equals l in its sizes
// (tp, pp, vp, cp, ep, dp, mbs) among ranked records; rank is 1-based,
// 0 when absent. The best-ranked matching record wins.
func PublishedIn(recs []Record, ranked []int, l parallel.Layout) (rank int, rec *Record) {
	for k, i := range ranked {
		if SameSizes(recs[i].Regime, l) {
			return k + 1, &recs[i]
		}
	}
	return 0, nil
}

// SearchFigure is the chart of a search: every candidate's iteration time
// against its peak memory per GPU (reports.SearchChart), the best top
// (of the distinct layouts when distinct, see Distinct) filled and the layouts of refs (named refName) ringed.
func SearchFigure(workload, cluster string, res *SearchResult, top int, distinct bool, refs []parallel.Layout, refName string) *reports.Figure {
	best := map[int]bool{}
	list := res.Ranked
	if distinct {
		list = Distinct(res.Records, res.Ranked)
	}
	for _, i := range list[:min(top, len(list))] {
		best[i] = true
	}
	marked := map[int]bool{}
	for _, l := range refs {
		for _, i := range res.Ranked {
			if SameSizes(res.Records[i].Regime, l) {
				marked[i] = true
			}
		}
	}
	pts := make([]reports.SearchPoint, 0, len(res.Records))
	for i, r := range res.Records {
		if strings.HasPrefix(r.NotComparable, notComparableInvalid) {
			continue
		}
		p := reports.SearchPoint{PeakMemory: r.MaxPeak(), StepTime: r.StepTime, Top: best[i], Marked: marked[i],
			Pruned: r.NotComparable == notComparablePruned, OOM: r.OOM != nil && r.NotComparable == "" || r.Error != ""}
		for _, c := range r.Capacity {
			p.Capacity = max(p.Capacity, c)
		}
		pts = append(pts, p)
	}
	if len(refs) == 0 {
		refName = ""
	}
	title := fmt.Sprintf("Layout search: %s on %s, %d candidates", strings.TrimPrefix(workload, "zoo:"), cluster, len(pts))
	return reports.SearchChart(title, pts, top, refName)
}

// SameSizes reports whether a record's regime ("layout ...") has l's
// tp, pp, vp, cp, ep, dp and micro-batch size.
func SameSizes(regime string, l parallel.Layout) bool {
	pl, err := parallel.Parse(strings.TrimPrefix(regime, "layout "))
	return err == nil && pl.TP == l.TP && pl.PP == l.PP && pl.VP == l.VP && pl.CP == l.CP && pl.EP == l.EP && pl.DP == l.DP && pl.MicroBatch == l.MicroBatch
}
