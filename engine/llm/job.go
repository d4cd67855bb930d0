package llm

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"placesim/devices"
	"placesim/parallel"
	"placesim/workloads/zoo"
)

// Job is one training iteration to simulate.
type Job struct {
	// Model is the transformer.
	Model zoo.LLM
	// Layout is the parallel layout (GPUs = TP·PP·CP·DP).
	Layout parallel.Layout
	// Cluster runs it: global rank i runs on device i (Megatron-LM's
	// rank order tp-cp-ep-dp-pp: the tensor-parallel group is innermost,
	// the pipeline outermost).
	Cluster *devices.Cluster
	// Stages is the number of transformer layers of each virtual stage
	// (PP·VP entries, virtual stage k = chunk·PP + rank), as a stage
	// planner chose; nil is Megatron's split (EvenStages).
	Stages []int
	// Planner names where Stages came from (reported; "" = even).
	Planner string
	// Mode chooses between simulation by symmetry and of every GPU
	// (ModeAuto: by symmetry where it holds).
	Mode Mode
	// Slowdown is a what-if: global rank -> factor (1 to MaxSlowdown) on
	// that GPU's compute time (a straggler; a slow node is its GPUs).
	Slowdown map[int]float64
	// RecomputeModules are Megatron-core's --recompute-modules beside
	// the layout's recompute mode: each listed module's ops
	// (zoo.LLMOp.Module: "layernorm", "moe_act") run their forward again
	// in the backward. Their saved activations are still counted
	// (memory is not reduced: an upper bound).
	RecomputeModules []string
	// BF16Grads: gradients are accumulated and reduced in BF16, as
	// Megatron-core does with grad_reduce_in_fp32=False (what
	// Megatron-Bridge's performance scripts set), not in FP32 (NeMo's
	// recipes, the default here): 2 bytes a parameter instead of 4 in the
	// gradient buffer and in the data-parallel reduction. It changes
	// nothing under FP16, whose gradients are 2 bytes already.
	BF16Grads bool
}

// EvenStages is Megatron-LM's split of layers over n virtual stages: equal
// shares; when layers is not a multiple of n but layers+2 is, the first
// and last stages count the embedding and the loss as one layer each
// (account_for_embedding_in_pipeline_split and
// account_for_loss_in_pipeline_split, as NeMo's Llama 3.1 405B recipe
// splits 126 layers over 64 virtual stages); otherwise the first
// layers mod n stages take one layer more.
func EvenStages(layers, n int) []int {
	st := make([]int, n)
	switch {
	case layers%n == 0:
		for i := range st {
			st[i] = layers / n
		}
	case n >= 2 && (layers+2)%n == 0:
		per := (layers + 2) / n
		for i := range st {
			st[i] = per
		}
		st[0]--
		st[n-1]--
	default:
		for i := range st {
			st[i] = layers / n
			if i < layers%n {
				st[i]++
			}
		}
	}
	return st
}

// recomputesModule reports whether op's forward runs again in the
// backward as part of one of j's RecomputeModules: its module is listed
// and the layout does not recompute the whole layer already.
func (j *Job) recomputesModule(op zoo.LLMOp) bool {
	return op.Module != "" && slices.Contains(j.RecomputeModules, op.Module) && j.Layout.Recompute != parallel.RecomputeFull
}

// checkExceptStages validates the job but for its Stages, which the
// pricing of pipeline rank 0's parts (PartTimesOf, OpCosts,
// DispatchMetadataOf) does not read.
func (j *Job) checkExceptStages() error {
	c := *j
	c.Stages = nil
	_, err := c.check()
	return err
}

// check validates the job and returns its stages.
func (j *Job) check() ([]int, error) {
	l := j.Layout
	if err := l.Validate(); err != nil {
		return nil, err
	}
	if err := j.Model.Validate(); err != nil {
		return nil, err
	}
	if j.Cluster == nil {
		return nil, fmt.Errorf("%w: no cluster", ErrJob)
	}
	if g := l.GPUs(); g > len(j.Cluster.Devices) {
		return nil, fmt.Errorf("%w: layout %s needs tp*pp*cp*dp = %d GPUs, cluster %s has %d", ErrJob, l, g, j.Cluster.Name, len(j.Cluster.Devices))
	}
	for _, d := range j.Cluster.Devices[:l.GPUs()] {
		if d.Kind.Class != devices.Accelerator {
			return nil, fmt.Errorf("%w: device %s of cluster %s is not an accelerator", ErrJob, d.Name, j.Cluster.Name)
		}
	}
	if j.Mode < ModeAuto || j.Mode > ModeFull {
		return nil, fmt.Errorf("%w: mode %d (valid: auto, reduced, full)", ErrJob, int(j.Mode))
	}
	for g, f := range j.Slowdown {
		if g < 0 || g >= l.GPUs() || !(f >= 1 && f <= MaxSlowdown) {
			return nil, fmt.Errorf("%w: slowdown of GPU %d = %g (valid: GPU 0 to %d, factor 1 to %d)", ErrJob, g, f, l.GPUs()-1, MaxSlowdown)
		}
	}
	for _, mod := range j.RecomputeModules {
		if !slices.Contains(zoo.RecomputeModules, mod) {
			return nil, fmt.Errorf("%w: recompute module %q (valid: %s)", ErrJob, mod, strings.Join(zoo.RecomputeModules, ", "))
		}
	}
	m := j.Model
	if m.Heads%l.TP != 0 || m.KVHeads%l.TP != 0 && l.TP%m.KVHeads != 0 {
		return nil, fmt.Errorf("%w: tp = %d must divide heads = %d and kv_heads = %d (or be a multiple of kv_heads)", ErrJob, l.TP, m.Heads, m.KVHeads)
	}
	if m.FFN%l.TP != 0 {
		return nil, fmt.Errorf("%w: tp = %d must divide ffn = %d", ErrJob, l.TP, m.FFN)
	}
	if (m.Seq/l.CP)%l.TP != 0 && l.SequenceParallel || m.Seq%(2*l.CP) != 0 && l.CP > 1 {
		return nil, fmt.Errorf("%w: seq = %d must split over cp = %d (into 2*cp chunks for causal balance) and, with sp, over tp = %d", ErrJob, m.Seq, l.CP, l.TP)
	}
	if l.EP > 1 && !m.MoE() {
		return nil, fmt.Errorf("%w: ep = %d on dense model %s (valid: ep = 1)", ErrJob, l.EP, m.Name)
	}
	if m.MoE() && m.Experts%l.EP != 0 {
		return nil, fmt.Errorf("%w: ep = %d must divide experts = %d", ErrJob, l.EP, m.Experts)
	}
	n := l.PP * l.VP
	st := j.Stages
	if st == nil {
		if m.Layers < n-2 || m.Layers < 1 {
			return nil, fmt.Errorf("%w: %d layers over pp*vp = %d virtual stages (valid: at least one layer per stage)", ErrJob, m.Layers, n)
		}
		st = EvenStages(m.Layers, n)
	}
	if len(st) != n {
		return nil, fmt.Errorf("%w: %d stage sizes for pp*vp = %d virtual stages", ErrJob, len(st), n)
	}
	sum := 0
	for i, s := range st {
		if s < 0 {
			return nil, fmt.Errorf("%w: stage %d has %d layers (valid range: >= 0)", ErrJob, i, s)
		}
		sum += s
	}
	if sum != m.Layers {
		return nil, fmt.Errorf("%w: stages hold %d layers, the model has %d", ErrJob, sum, m.Layers)
	}
	return st, nil
}

// rank is the global rank of (tp, cp, dp, pp) coordinates in Megatron's
// order tp-cp-ep-dp-pp (expert parallelism folds into cp x dp).
func (j *Job) rank(tp, cp, dp, pp int) int {
	l := j.Layout
	return tp + l.TP*(cp+l.CP*(dp+l.DP*pp))
}

// coords are global rank g's (tp, cp, dp, pp) coordinates: rank's
// inverse.
func (j *Job) coords(g int) (tp, cp, dp, pp int) {
	l := j.Layout
	return g % l.TP, g / l.TP % l.CP, g / (l.TP * l.CP) % l.DP, g / (l.TP * l.CP * l.DP)
}

// The groups of one kind that pipeline rank r's ranks run at the same
// time, the representative's first (see collMemo.time).

func (j *Job) tpPeers(r int) [][]int {
	l := j.Layout
	var gs [][]int
	for d := 0; d < l.DP; d++ {
		for c := 0; c < l.CP; c++ {
			g := make([]int, l.TP)
			for i := range g {
				g[i] = j.rank(i, c, d, r)
			}
			gs = append(gs, g)
		}
	}
	return gs
}

// cpPairs are the first ring step's pairs (context rank 0 to 1) of every
// tensor- and data-parallel rank.
func (j *Job) cpPairs(r int) [][]int {
	l := j.Layout
	var gs [][]int
	for d := 0; d < l.DP; d++ {
		for t := 0; t < l.TP; t++ {
			gs = append(gs, []int{j.rank(t, 0, d, r), j.rank(t, 1, d, r)})
		}
	}
	return gs
}

func (j *Job) dpPeers(r int) [][]int {
	l := j.Layout
	var gs [][]int
	for t := 0; t < l.TP; t++ {
		g := make([]int, 0, l.DP*l.CP)
		for d := 0; d < l.DP; d++ {
			for c := 0; c < l.CP; c++ {
				g = append(g, j.rank(t, c, d, r))
			}
		}
		gs = append(gs, g)
	}
	return gs
}

func (j *Job) epPeers(r int) [][]int {
	l := j.Layout
	var gs [][]int
	for t := 0; t < l.TP; t++ {
		for b := 0; b < l.DP*l.CP/l.EP; b++ {
			g := make([]int, l.EP)
			for i := range g {
				k := b*l.EP + i
				g[i] = j.rank(t, k%l.CP, k/l.CP, r)
			}
			gs = append(gs, g)
		}
	}
	return gs
}

func (j *Job) expertDPPeers(r int) [][]int {
	var gs [][]int
	for _, dp := range j.dpPeers(r) {
		for o := 0; o < j.Layout.EP; o++ {
			var g []int
			for i := o; i < len(dp); i += j.Layout.EP {
				g = append(g, dp[i])
			}
			gs = append(gs, g)
		}
	}
	return gs
}

// ppPairs are the point-to-point transfers from pipeline rank r to
// pipeline rank dst: each rank of r's stage to its counterpart.
func (j *Job) ppPairs(r, dst int) [][]int {
	l := j.Layout
	var gs [][]int
	for d := 0; d < l.DP; d++ {
		for c := 0; c < l.CP; c++ {
			for t := 0; t < l.TP; t++ {
				gs = append(gs, []int{j.rank(t, c, d, r), j.rank(t, c, d, dst)})
			}
		}
	}
	return gs
}

// nodeSample is the set of GPUs whose routes stand for pipeline rank
// r's by symmetry: the members of the representative's data-parallel
// group (tensor rank 0, every context and data-parallel rank of the
// data-parallel blocks of col) on the node (NVLink domain) of the
// column's first GPU.
func (j *Job) nodeSample(r int, col []int) map[int]bool {
	l := j.Layout
	cv := j.Cluster.Comm()
	first := j.gangMembers(r, col[0])[0]
	out := map[int]bool{}
	n := j.gangDP()
	for _, b := range col {
		for d := b * n; d < (b+1)*n; d++ {
			for c := 0; c < l.CP; c++ {
				if g := j.rank(0, c, d, r); cv.Node[g] == cv.Node[first] {
					out[g] = true
				}
			}
		}
	}
	return out
}

// dpLinks are the links pipeline rank r's data-parallel collectives hold
// while they run: the routes between neighbours of the ring of each of
// its dense and expert data-parallel groups (NCCL's ring in rank order),
// sorted. By symmetry (all false) only the ring edges of the
// representative's groups (the first of dense and expert) into and out
// of the sample's GPUs are routed, as only the sample's pipeline sends
// are; the full mode routes every group's ring.
func (j *Job) dpLinks(r int, all bool, dense, expert [][]int, sample map[int]bool) []int {
	seen := map[int]bool{}
	var out []int
	add := func(a, b int) {
		for _, lid := range j.Cluster.Route(a, b) {
			if !seen[int(lid)] {
				seen[int(lid)] = true
				out = append(out, int(lid))
			}
		}
	}
	for _, gs := range [][][]int{dense, expert} {
		for _, g := range gs {
			if len(g) < 2 {
				continue
			}
			for i, a := range g {
				if b := g[(i+1)%len(g)]; all || sample[a] || sample[b] {
					add(a, b)
				}
			}
			if !all {
				break // the representative's group comes first
			}
		}
	}
	sort.Ints(out)
	return out
}
