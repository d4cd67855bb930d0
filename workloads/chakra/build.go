package chakra

import (
	"fmt"
	"sort"
	"strings"

	"placesim/workloads"
)

// Summary says what a trace holds and how it was played: the counts
// placesim stats prints.
type Summary struct {
	// Format is "chakra" (Chakra ET) or "pytorch" (PyTorch execution
	// trace); Files the files read, Ranks their ranks.
	Format string   `json:"format"`
	Files  []string `json:"files"`
	Ranks  []int    `json:"ranks"`
	// Version is the Chakra schema version (GlobalMetadata.version, ""
	// when the trace predates it); Schema the host trace's schema.
	Version string `json:"version"`
	Schema  string `json:"schema,omitempty"`
	// Nodes counts the trace's nodes, then by kind.
	Nodes      int `json:"nodes"`
	Compute    int `json:"compute"`
	Collective int `json:"collective"`
	Send       int `json:"send"`
	Recv       int `json:"recv"`
	Memory     int `json:"memory"`
	Metadata   int `json:"metadata"`
	// HostOps counts the host-side operators (is_cpu_op) among them.
	HostOps int `json:"hostOps"`
	// ComputeSeconds is the sum of the compute nodes' measured durations
	// (host operators and kernels); KernelSeconds the part on the
	// accelerator; CollectiveSeconds the collectives'.
	ComputeSeconds    float64 `json:"computeSeconds"`
	KernelSeconds     float64 `json:"kernelSeconds"`
	CollectiveSeconds float64 `json:"collectiveSeconds"`
	// Collectives counts the collectives by type (ALL_REDUCE, ...).
	Collectives map[string]int `json:"collectives,omitempty"`
	// Groups are the process groups the trace defines.
	Groups []Group `json:"groups,omitempty"`
	// Device is the key the measured durations are played under (a device
	// kind, or "accelerator" for any).
	Device string `json:"device"`
	// CPU is the host-operator policy (drop, host, device).
	CPU string `json:"cpu"`
	// NoDuration counts the played nodes without a measured duration,
	// which the cost model times.
	NoDuration int `json:"noDuration"`
	// CollectivesSimulated counts the collectives played as transfers
	// between ranks of the set (their measured time unused);
	// CollectivesMeasured those played on their measured time (peers not
	// in the trace).
	CollectivesSimulated int `json:"collectivesSimulated"`
	CollectivesMeasured  int `json:"collectivesMeasured"`
	// LongestChain is the longest chain of measured durations through the
	// dependencies of the played graph, in seconds: a lower bound of any
	// simulated step of it.
	LongestChain float64 `json:"longestChain"`
	// Warnings say what the reader could not use.
	Warnings []string `json:"warnings,omitempty"`
}

// nodeRef names a node of the set: its rank's index and its index there.
type nodeRef struct{ r, i int }

// builder turns a Trace into a graph.
type builder struct {
	t       *Trace
	opts    Options
	g       *workloads.Graph
	idx     []map[uint64]int      // per rank: node id -> index
	op      [][]int               // per rank and node: its op (-1: none)
	done    [][]int               // per rank and node: a collective's done op (-1: none)
	fold    map[nodeRef]nodeRef   // a folded receive -> its send
	folded  map[nodeRef]bool      // folded sends and receives
	pair    map[nodeRef]nodeRef   // an unfolded receive -> its send
	coll    map[nodeRef][]nodeRef // a collective between ranks -> its instance
	multi   bool
	inSet   map[int]int // rank number -> index in t.Ranks
	gpuKey  string
	summary *Summary
}

// Build turns a trace into a graph: one op per played node (a collective
// between ranks of the set: a start and a done op, joined by the transfers
// of the direct algorithm), measured durations as measured times, data
// dependencies as edges. Errors name the file, the node and what is wrong.
func Build(t *Trace, opts Options) (*workloads.Graph, *Summary, error) {
	if opts.CPU == "" {
		opts.CPU = CPUDrop
	}
	if opts.Batch < 1 {
		opts.Batch = 1
	}
	b := &builder{t: t, opts: opts, g: workloads.NewGraph(t.Name, opts.Batch), multi: len(t.Ranks) > 1,
		inSet: map[int]int{}, fold: map[nodeRef]nodeRef{}, folded: map[nodeRef]bool{}, pair: map[nodeRef]nodeRef{}}
	b.gpuKey = opts.Device
	if b.gpuKey == "" {
		b.gpuKey = workloads.MeasuredAccelerator
	}
	s := &Summary{Format: t.Format, Device: b.gpuKey, CPU: opts.CPU, Collectives: map[string]int{}}
	b.summary = s
	for i, r := range t.Ranks {
		if j, dup := b.inSet[r.Rank]; dup {
			return nil, nil, fmt.Errorf("%w: %s and %s are both rank %d", ErrFormat, t.Ranks[j].File, r.File, r.Rank)
		}
		b.inSet[r.Rank] = i
		s.Files = append(s.Files, r.File)
		s.Ranks = append(s.Ranks, r.Rank)
		if i == 0 {
			s.Version, s.Schema = r.Version, r.Schema
		}
	}
	if err := b.index(); err != nil {
		return nil, nil, err
	}
	if err := b.matchCollectives(); err != nil {
		return nil, nil, err
	}
	if err := b.matchP2P(); err != nil {
		return nil, nil, err
	}
	if err := b.ops(); err != nil {
		return nil, nil, err
	}
	if err := b.edges(); err != nil {
		return nil, nil, err
	}
	for _, name := range sortedGroupNames(t.Groups) {
		s.Groups = append(s.Groups, *t.Groups[name])
	}
	s.Warnings = t.warn.list()
	b.g.Warnings = s.Warnings
	if err := b.g.Validate(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	s.LongestChain = b.longestChain()
	return b.g, s, nil
}

func sortedGroupNames(m map[string]*Group) []string {
	n := make([]string, 0, len(m))
	for k := range m {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// index maps node ids, counts the nodes, checks that dependencies name
// nodes of the rank and that they have no cycle.
func (b *builder) index() error {
	s := b.summary
	b.idx = make([]map[uint64]int, len(b.t.Ranks))
	for ri, r := range b.t.Ranks {
		m := make(map[uint64]int, len(r.Nodes))
		for i := range r.Nodes {
			m[r.Nodes[i].ID] = i
		}
		b.idx[ri] = m
		for i := range r.Nodes {
			n := &r.Nodes[i]
			s.Nodes++
			if n.CPU {
				s.HostOps++
			}
			switch n.Kind {
			case Compute:
				s.Compute++
				if n.HasDuration {
					s.ComputeSeconds += n.Duration
					if !n.CPU {
						s.KernelSeconds += n.Duration
					}
				}
			case Collective:
				s.Collective++
				s.Collectives[n.Coll.String()]++
				if n.HasDuration {
					s.CollectiveSeconds += n.Duration
				}
			case Send:
				s.Send++
			case Recv:
				s.Recv++
			case MemLoad, MemStore:
				s.Memory++
			case Metadata:
				s.Metadata++
			}
			var err error
			if n.Deps, n.DepBytes, err = b.present(r, m, n, n.Deps, n.DepBytes, true); err != nil {
				return err
			}
			if n.Parents, _, err = b.present(r, m, n, n.Parents, nil, b.opts.CtrlOrder); err != nil {
				return err
			}
		}
		if err := cycle(r, m, b.deps); err != nil {
			return err
		}
	}
	return nil
}

// present keeps the dependencies that name nodes of the rank; one that
// does not is a warning (an error under strict) when warn is set.
func (b *builder) present(r *Rank, m map[uint64]int, n *Node, deps []uint64, bytes []int64, warn bool) ([]uint64, []int64, error) {
	missing := 0
	for _, d := range deps {
		if _, ok := m[d]; !ok {
			missing++
			if warn {
				if err := b.t.warn.add("dependency on a node the trace does not contain: ignored", fmt.Sprintf("%s node %d -> node %d", r.File, n.ID, d)); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if missing == 0 {
		return deps, bytes, nil
	}
	keep := make([]uint64, 0, len(deps)-missing)
	var kb []int64
	for i, d := range deps {
		if _, ok := m[d]; ok {
			keep = append(keep, d)
			if len(bytes) == len(deps) {
				kb = append(kb, bytes[i])
			}
		}
	}
	return keep, kb, nil
}

// deps are the dependencies a node waits for: data_deps, and ctrl_deps
// under ctrl=order.
func (b *builder) deps(n *Node) []uint64 {
	if !b.opts.CtrlOrder || len(n.Parents) == 0 {
		return n.Deps
	}
	return append(append([]uint64(nil), n.Deps...), n.Parents...)
}

// cycle reports a dependency cycle of a rank, naming its nodes.
func cycle(r *Rank, idx map[uint64]int, deps func(*Node) []uint64) error {
	n := len(r.Nodes)
	indeg := make([]int32, n)
	succ := make([][]int32, n)
	for i := range r.Nodes {
		for _, d := range deps(&r.Nodes[i]) {
			j, ok := idx[d]
			if !ok {
				continue
			}
			indeg[i]++
			succ[j] = append(succ[j], int32(i))
		}
	}
	queue := make([]int32, 0, n)
	for i := range indeg {
		if indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for k := 0; k < len(queue); k++ {
		for _, s := range succ[queue[k]] {
			if indeg[s]--; indeg[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	if len(queue) == n {
		return nil
	}
	// walk back from a node left over until a node repeats
	start := -1
	for i := range indeg {
		if indeg[i] > 0 {
			start = i
			break
		}
	}
	pos := map[int]int{}
	var path []int
	for cur := start; ; {
		if p, ok := pos[cur]; ok {
			path = path[p:]
			break
		}
		pos[cur] = len(path)
		path = append(path, cur)
		next := -1
		for _, d := range deps(&r.Nodes[cur]) {
			if j, ok := idx[d]; ok && indeg[j] > 0 {
				next = j
				break
			}
		}
		if next < 0 {
			break
		}
		cur = next
	}
	ids := make([]string, 0, len(path)+1)
	for k := len(path) - 1; k >= 0; k-- {
		ids = append(ids, fmt.Sprint(r.Nodes[path[k]].ID))
	}
	if len(path) > 0 {
		ids = append(ids, fmt.Sprint(r.Nodes[path[len(path)-1]].ID))
	}
	return fmt.Errorf("%w: %s: dependency cycle among nodes %s (%d nodes cannot be ordered)", ErrFormat, r.File, strings.Join(ids, " -> "), n-len(queue))
}

// collective instance: the k-th collective of a group.
type collKey struct {
	group string
	k     int
}

// members is the ranks a node's collective spans, with errors for a group
// the trace does not define or, in a set, a rank it does not hold.
func (b *builder) members(r *Rank, n *Node) ([]int, error) {
	if n.Group == "" {
		if !b.multi {
			return []int{r.Rank}, nil
		}
		out := make([]int, 0, len(b.t.Ranks))
		for _, x := range b.t.Ranks {
			out = append(out, x.Rank)
		}
		sort.Ints(out)
		return out, nil
	}
	g := b.t.Groups[n.Group]
	if g == nil {
		return nil, fmt.Errorf("%w: %s: node %d %q references process group %q, which the trace does not define (groups: %s)", ErrRank, r.File, n.ID, clip(n.Name, 60), n.Group, b.t.groupNames())
	}
	m := g.members()
	if b.multi {
		for _, q := range m {
			if _, ok := b.inSet[q]; !ok {
				return nil, fmt.Errorf("%w: %s: node %d %q: process group %q has rank %d, which the trace set (ranks %v) does not contain", ErrRank, r.File, n.ID, clip(n.Name, 60), n.Group, q, b.summary.Ranks)
			}
		}
	}
	return m, nil
}

// matchCollectives pairs the k-th collective of each group across the
// ranks of a set (NCCL runs a communicator's collectives in one order on
// every rank).
func (b *builder) matchCollectives() error {
	if !b.multi {
		for _, r := range b.t.Ranks {
			for i := range r.Nodes {
				if n := &r.Nodes[i]; n.Kind == Collective {
					if _, err := b.members(r, n); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	inst := map[collKey][]nodeRef{}
	count := map[string][]int{} // group -> per rank index: collectives seen
	for ri, r := range b.t.Ranks {
		for i := range r.Nodes {
			n := &r.Nodes[i]
			if n.Kind != Collective {
				continue
			}
			m, err := b.members(r, n)
			if err != nil {
				return err
			}
			if !containsInt(m, r.Rank) {
				return fmt.Errorf("%w: %s: node %d %q is a collective of process group %q (ranks %v), which does not have rank %d", ErrRank, r.File, n.ID, clip(n.Name, 60), n.Group, m, r.Rank)
			}
			c := count[n.Group]
			if c == nil {
				c = make([]int, len(b.t.Ranks))
				count[n.Group] = c
			}
			k := collKey{n.Group, c[ri]}
			c[ri]++
			inst[k] = append(inst[k], nodeRef{ri, i})
		}
	}
	keys := make([]collKey, 0, len(inst))
	for k := range inst {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].group != keys[j].group {
			return keys[i].group < keys[j].group
		}
		return keys[i].k < keys[j].k
	})
	b.coll = make(map[nodeRef][]nodeRef, len(inst))
	for _, k := range keys {
		refs := inst[k]
		first := &b.t.Ranks[refs[0].r].Nodes[refs[0].i]
		m, _ := b.members(b.t.Ranks[refs[0].r], first)
		if len(refs) != len(m) {
			have := map[int]bool{}
			for _, x := range refs {
				have[b.t.Ranks[x.r].Rank] = true
			}
			for _, q := range m {
				if !have[q] {
					return fmt.Errorf("%w: collective #%d of process group %q (node %d %q of %s) has no counterpart on rank %d (%s): the ranks' traces do not hold the same collectives", ErrRank, k.k+1, k.group, first.ID, clip(first.Name, 60), b.t.Ranks[refs[0].r].File, q, b.t.Ranks[b.inSet[q]].File)
				}
			}
		}
		for _, x := range refs {
			n := &b.t.Ranks[x.r].Nodes[x.i]
			if n.Coll != first.Coll {
				return fmt.Errorf("%w: collective #%d of process group %q is %s on %s (node %d) but %s on %s (node %d)", ErrFormat, k.k+1, k.group, first.Coll, b.t.Ranks[refs[0].r].File, first.ID, n.Coll, b.t.Ranks[x.r].File, n.ID)
			}
			b.coll[x] = refs
		}
	}
	return nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
