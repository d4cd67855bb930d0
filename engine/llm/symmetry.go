package llm

import (
	"fmt"
	"sort"
	"strings"

	"placesim/links"
)

// Mode says how Simulate plays the GPUs of a job.
type Mode int

const (
	// ModeAuto plays the job by symmetry (ModeReduced) where its GPUs
	// are interchangeable; where they are not (a straggler, a slow link,
	// mixed GPU kinds) it plays the data-parallel blocks holding the odd
	// GPUs individually at every pipeline rank and the other blocks by
	// one representative per pipeline rank (Result.Mode "mixed"; "full"
	// when every block holds one); the result says which and why.
	ModeAuto Mode = iota
	// ModeReduced plays one representative GPU per pipeline rank for its
	// tensor-, context- and data-parallel peers; an asymmetric job is an
	// error naming the GPUs that break the symmetry.
	ModeReduced
	// ModeFull plays every GPU on its own: each tensor- and
	// context-parallel group (with the expert-parallel group it belongs
	// to) runs its chunks on its own devices, a chunk's collectives ending
	// with the group's slowest member; a data-parallel collective starts
	// when every member of its group has arrived; each group's pipeline
	// sends run over its own GPUs' routes, FCFS on the links they cross.
	ModeFull
)

// String is the mode's name (auto, reduced, full).
func (m Mode) String() string {
	switch m {
	case ModeAuto:
		return "auto"
	case ModeReduced:
		return "reduced"
	case ModeFull:
		return "full"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads auto, reduced or full.
func ParseMode(s string) (Mode, error) {
	for _, m := range []Mode{ModeAuto, ModeReduced, ModeFull} {
		if strings.EqualFold(strings.TrimSpace(s), m.String()) {
			return m, nil
		}
	}
	return 0, fmt.Errorf("%w: mode %q (valid: auto, reduced, full)", ErrJob, s)
}

// Class is a set of GPUs simulated by one representative: a pipeline
// rank's tensor-, context- and data-parallel peers in the reduced mode.
type Class struct {
	// Rank is the pipeline rank; Representative the global rank (device
	// index) whose program was played; GPUs every global rank it stands
	// for, the representative's included, ascending.
	Rank           int   `json:"rank"`
	Representative int   `json:"representative"`
	GPUs           []int `json:"gpus"`
}

// MaxSlowdown bounds Job.Slowdown's factors.
const MaxSlowdown = 1000

// asymmetry lists the GPUs of the job that are not interchangeable with
// their peers (nil when the job is symmetric), with the reasons.
func (j *Job) asymmetry() (gpus []int, why []string) {
	G := j.Layout.GPUs()
	odd := map[int]bool{}
	add := func(g int, reason string) {
		if !odd[g] {
			odd[g] = true
		}
		if len(why) < 3 {
			why = append(why, reason)
		}
	}
	// stragglers (what-if)
	ks := make([]int, 0, len(j.Slowdown))
	for g := range j.Slowdown {
		ks = append(ks, g)
	}
	sort.Ints(ks)
	for _, g := range ks {
		if f := j.Slowdown[g]; f != 1 {
			add(g, fmt.Sprintf("GPU %d computes %.3gx slower (slowdown what-if)", g, f))
		}
	}
	// device kinds and memory: every GPU as GPU 0
	devs := j.Cluster.Devices
	ref := &devs[0]
	for g := 1; g < G; g++ {
		d := &devs[g]
		k, rk := &d.Kind, &ref.Kind
		if k.Name != rk.Name || d.Memory != ref.Memory || k.Memory != rk.Memory || k.PeakFLOPS != rk.PeakFLOPS || k.TensorFLOPS != rk.TensorFLOPS ||
			k.TensorBF16 != rk.TensorBF16 || k.TensorFP8 != rk.TensorFP8 || k.MemBandwidth != rk.MemBandwidth ||
			k.ComputeEfficiency != rk.ComputeEfficiency || k.MemEfficiency != rk.MemEfficiency {
			add(g, fmt.Sprintf("GPU %d (%s, %s) differs from GPU 0 (%s, %s)", g, d.Name, k.Name, ref.Name, rk.Name))
		}
	}
	// placement: a GPU whose tensor-, context- or expert-parallel group
	// or whose pipeline counterparts sit inside or outside its node
	// (NVLink domain) otherwise than its representative's (a pipeline
	// rank straddling two NVL72 racks) runs its program on other links
	cv := j.Cluster.Comm()
	l := j.Layout
	sig := func(g int) [5]bool {
		t, c, d, r := j.coords(g)
		one := func(grp []int) bool {
			for _, x := range grp {
				if cv.Node[x] != cv.Node[grp[0]] {
					return false
				}
			}
			return true
		}
		var tg, cg, eg []int
		for i := 0; i < l.TP; i++ {
			tg = append(tg, j.rank(i, c, d, r))
		}
		for i := 0; i < l.CP; i++ {
			cg = append(cg, j.rank(t, i, d, r))
		}
		k0 := (c + l.CP*d) / l.EP * l.EP
		for i := 0; i < l.EP; i++ {
			k := k0 + i
			eg = append(eg, j.rank(t, k%l.CP, k/l.CP, r))
		}
		next := r+1 < l.PP && cv.Node[j.rank(t, c, d, r+1)] == cv.Node[g]
		prev := r > 0 && cv.Node[j.rank(t, c, d, r-1)] == cv.Node[g]
		return [5]bool{one(tg), one(cg), one(eg), next, prev}
	}
	for r := 0; r < l.PP; r++ {
		rep := j.rank(0, 0, 0, r)
		want := sig(rep)
		per := l.TP * l.CP * l.DP
		for g := r * per; g < (r+1)*per; g++ {
			if sig(g) != want {
				add(g, fmt.Sprintf("GPU %d's groups or pipeline peers cross node boundaries (NVLink domains) otherwise than its representative GPU %d's", g, rep))
			}
		}
	}
	// links: within each class of links (kind and the types of the
	// endpoints it joins) the common bandwidth and latency; a link that
	// differs (a slow link or adapter as a what-if) makes the GPUs whose
	// routes to their peers cross it odd
	top := j.Cluster.Topology
	type lclass struct {
		kind     string
		from, to links.EndpointType
	}
	type fig struct{ bw, lat float64 }
	counts := map[lclass]map[fig]int{}
	for _, lk := range top.Links {
		c := lclass{lk.Kind, top.Endpoints[lk.From].Type, top.Endpoints[lk.To].Type}
		if counts[c] == nil {
			counts[c] = map[fig]int{}
		}
		counts[c][fig{lk.Bandwidth, lk.Latency}]++
	}
	common := map[lclass]fig{}
	for c, fs := range counts {
		best, n := fig{}, -1
		for f, k := range fs {
			if k > n || k == n && (f.bw > best.bw || f.bw == best.bw && f.lat < best.lat) {
				best, n = f, k
			}
		}
		common[c] = best
	}
	slow := map[links.LinkID]bool{}
	for _, lk := range top.Links {
		c := lclass{lk.Kind, top.Endpoints[lk.From].Type, top.Endpoints[lk.To].Type}
		if f := common[c]; f.bw != lk.Bandwidth || f.lat != lk.Latency {
			slow[lk.ID] = true
		}
	}
	if len(slow) > 0 {
		for g := 0; g < G; g++ {
			t, c, d, r := j.coords(g)
			peers := []int{j.rank((t+1)%l.TP, c, d, r), j.rank(t, (c+1)%l.CP, d, r), j.rank(t, c, (d+1)%l.DP, r), j.rank(t, c, d, (r+1)%l.PP),
				j.rank((t+l.TP-1)%l.TP, c, d, r), j.rank(t, (c+l.CP-1)%l.CP, d, r), j.rank(t, c, (d+l.DP-1)%l.DP, r), j.rank(t, c, d, (r+l.PP-1)%l.PP)}
			for _, p := range peers {
				if p == g {
					continue
				}
				for _, pair := range [2][2]int{{g, p}, {p, g}} {
					for _, lid := range j.Cluster.Route(pair[0], pair[1]) {
						if slow[lid] {
							lk := top.Links[lid]
							add(g, fmt.Sprintf("GPU %d's route to GPU %d crosses link %s->%s (%s, %.3g GB/s, %.3g us; its kind's common figures %.3g GB/s, %.3g us)",
								pair[0], pair[1], top.Endpoints[lk.From].Name, top.Endpoints[lk.To].Name, lk.Kind, lk.Bandwidth/1e9, lk.Latency*1e6,
								common[lclass{lk.Kind, top.Endpoints[lk.From].Type, top.Endpoints[lk.To].Type}].bw/1e9, common[lclass{lk.Kind, top.Endpoints[lk.From].Type, top.Endpoints[lk.To].Type}].lat*1e6))
						}
					}
				}
			}
		}
	}
	for g := range odd {
		gpus = append(gpus, g)
	}
	sort.Ints(gpus)
	return gpus, why
}

// ranges writes ascending ints as "0-7, 16, 18-19".
func ranges(xs []int) string {
	var b strings.Builder
	for i := 0; i < len(xs); {
		k := i
		for k+1 < len(xs) && xs[k+1] == xs[k]+1 {
			k++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if k == i {
			fmt.Fprintf(&b, "%d", xs[i])
		} else {
			fmt.Fprintf(&b, "%d-%d", xs[i], xs[k])
		}
		i = k + 1
	}
	return b.String()
}

// classes of the reduced mode: one per pipeline rank.
func (j *Job) classes() []Class {
	l := j.Layout
	per := l.TP * l.CP * l.DP
	cs := make([]Class, l.PP)
	for r := range cs {
		g := make([]int, per)
		for i := range g {
			g[i] = r*per + i
		}
		cs[r] = Class{Rank: r, Representative: j.rank(0, 0, 0, r), GPUs: g}
	}
	return cs
}

// gangDP is the number of data-parallel ranks a gang spans: the
// expert-parallel groups are EP consecutive ranks of the cp x dp space
// (epGroup), so a gang holds lcm(EP, CP)/CP data-parallel ranks.
func (j *Job) gangDP() int {
	l := j.Layout
	a, b := l.EP, l.CP
	for b != 0 {
		a, b = b, a%b
	}
	return l.EP / a // lcm(EP, CP)/CP = EP/gcd(EP, CP)
}

// gangMembers are the global ranks of gang b of pipeline rank r: every
// tensor- and context-parallel rank of data-parallel ranks
// [b·gangDP, (b+1)·gangDP).
func (j *Job) gangMembers(r, b int) []int {
	l := j.Layout
	n := j.gangDP()
	out := make([]int, 0, n*l.TP*l.CP)
	for d := b * n; d < (b+1)*n; d++ {
		for c := 0; c < l.CP; c++ {
			for t := 0; t < l.TP; t++ {
				out = append(out, j.rank(t, c, d, r))
			}
		}
	}
	return out
}

// blockOf is the data-parallel block (gang index: gangDP consecutive
// data-parallel ranks) of global rank g.
func (j *Job) blockOf(g int) int {
	_, _, d, _ := j.coords(g)
	return d / j.gangDP()
}

// mixedColumns are the columns of the mixed mode: each data-parallel
// block holding an odd GPU at any pipeline rank on its own (a block's
// groups at every pipeline rank exchange activations with each other,
// so they are played together), then, when some are left, one column
// of all the others, played by its first block.
func (j *Job) mixedColumns(odd []int) [][]int {
	nb := j.Layout.DP / j.gangDP()
	isOdd := make([]bool, nb)
	for _, g := range odd {
		isOdd[j.blockOf(g)] = true
	}
	var cols [][]int
	var rest []int
	for b := 0; b < nb; b++ {
		if isOdd[b] {
			cols = append(cols, []int{b})
		} else {
			rest = append(rest, b)
		}
	}
	if len(rest) > 0 {
		cols = append(cols, rest)
	}
	return cols
}

// mixedClasses are the representative column's classes (one per
// pipeline rank: its first block's first GPU for every GPU of its
// blocks) and the GPUs the other columns play individually, ascending.
func (j *Job) mixedClasses(cols [][]int) ([]Class, []int) {
	l := j.Layout
	var played []int
	var cs []Class
	for r := 0; r < l.PP; r++ {
		for _, col := range cols {
			var gpus []int
			for _, b := range col {
				gpus = append(gpus, j.gangMembers(r, b)...)
			}
			sort.Ints(gpus)
			if len(col) == 1 {
				played = append(played, gpus...)
				continue
			}
			cs = append(cs, Class{Rank: r, Representative: j.gangMembers(r, col[0])[0], GPUs: gpus})
		}
	}
	sort.Ints(played)
	return cs, played
}
