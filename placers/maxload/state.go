package maxload

import (
	"fmt"
	"slices"
)

// State is an assignment whose loads are kept up to date under single-op
// moves, for local search: a move's effect is computed from the op's own
// times and the hyperedges it is in, in O(deg × devices).
type State struct {
	m       *Model
	nd      int
	Assign  []int
	compute []float64
	comm    []float64
	mem     []int64
	cnt     []int32 // members of hyperedge h on device d: cnt[h*nd+d]
}

// NewState starts from assign (copied).
func (m *Model) NewState(assign []int) *State {
	nd := m.K() + m.L()
	s := &State{m: m, nd: nd, Assign: append([]int(nil), assign...),
		compute: make([]float64, nd), comm: make([]float64, nd), mem: make([]int64, nd),
		cnt: make([]int32, len(m.Comm)*nd)}
	for op, d := range assign {
		s.compute[d] += m.time(op, d)
		s.mem[d] += m.Size[op]
	}
	for h, e := range m.Comm {
		for _, op := range e.Ops {
			s.cnt[h*nd+assign[op]]++
		}
		s.addCut(h, s.comm, 1)
	}
	return s
}

func (m *Model) time(op, d int) float64 {
	if m.IsAcc(d) {
		return m.AccTime[op]
	}
	return m.CPUTime[op]
}

// addCut adds sign × the hyperedge's cost to every accelerator it cuts.
func (s *State) addCut(h int, loads []float64, sign float64) {
	c := s.cnt[h*s.nd : (h+1)*s.nd]
	devs := 0
	for _, n := range c {
		if n > 0 {
			devs++
		}
	}
	if devs < 2 {
		return
	}
	cost := sign * s.m.Comm[h].Cost
	for d := 0; d < s.m.K(); d++ {
		if c[d] > 0 {
			loads[d] += cost
		}
	}
}

// Loads writes every device's current load into buf (len K+L).
func (s *State) Loads(buf []float64) {
	for d := range buf {
		buf[d] = s.compute[d] + s.comm[d]
	}
}

const inf = 1e300

// LoadsAfter writes into buf the loads the devices would have after moving
// op to device to (without moving it).
func (s *State) LoadsAfter(op, to int, buf []float64) {
	s.Loads(buf)
	from := s.Assign[op]
	if from == to {
		return
	}
	buf[from] -= s.m.time(op, from)
	buf[to] += s.m.time(op, to)
	for _, h := range s.m.CommOf[op] {
		s.addCut(int(h), buf, -1)
		s.cnt[int(h)*s.nd+from]--
		s.cnt[int(h)*s.nd+to]++
		s.addCut(int(h), buf, 1)
		s.cnt[int(h)*s.nd+from]++
		s.cnt[int(h)*s.nd+to]--
	}
}

// Move moves op to device to.
func (s *State) Move(op, to int) {
	from := s.Assign[op]
	if from == to {
		return
	}
	s.compute[from] -= s.m.time(op, from)
	s.compute[to] += s.m.time(op, to)
	s.mem[from] -= s.m.Size[op]
	s.mem[to] += s.m.Size[op]
	for _, h := range s.m.CommOf[op] {
		s.addCut(int(h), s.comm, -1)
		s.cnt[int(h)*s.nd+from]--
		s.cnt[int(h)*s.nd+to]++
		s.addCut(int(h), s.comm, 1)
	}
	s.Assign[op] = to
}

// Contract returns the model of the graph whose nodes are groups of ops
// (unitOf maps each op to its group, 0..n-1): a group's times and size are
// its ops' sums, and the hyperedges are over groups (those inside one
// group dropped, equal ones merged). It serves moves of whole groups
// (NewState, Loads); it has no Graph, so Evaluate, Explain, Report and Plan
// are not for it.
func (m *Model) Contract(unitOf []int, n int) *Model {
	c := &Model{Cluster: m.Cluster, Acc: m.Acc, CPU: m.CPU, AccMem: m.AccMem, CPUMem: m.CPUMem,
		AccTime: make([]float64, n), CPUTime: make([]float64, n), Size: make([]int64, n), CommOf: make([][]int32, n)}
	for op, u := range unitOf {
		c.AccTime[u] += m.AccTime[op]
		c.CPUTime[u] += m.CPUTime[op]
		c.Size[u] += m.Size[op]
	}
	index := map[string]int{}
	for _, h := range m.Comm {
		var nodes []int32
		for _, op := range h.Ops {
			u := int32(unitOf[op])
			dup := false
			for _, x := range nodes {
				dup = dup || x == u
			}
			if !dup {
				nodes = append(nodes, u)
			}
		}
		if len(nodes) < 2 {
			continue
		}
		sorted := append([]int32(nil), nodes...)
		slices.Sort(sorted)
		k := fmt.Sprint(sorted)
		if i, ok := index[k]; ok {
			c.Comm[i].Cost += h.Cost
			continue
		}
		index[k] = len(c.Comm)
		for _, u := range sorted {
			c.CommOf[u] = append(c.CommOf[u], int32(len(c.Comm)))
		}
		c.Comm = append(c.Comm, Hyperedge{Ops: sorted, Cost: h.Cost})
	}
	return c
}
