package baseline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"placesim/engine"
	"placesim/internal/scratch"
	"placesim/placers"
	"placesim/placers/maxload"
)

var (
	_ placers.Placer   = (*Partitioner)(nil)
	_ placers.Reporter = (*Partitioner)(nil)
)

// ErrNoPartitioner is wrapped when the partitioning tool is not installed.
var ErrNoPartitioner = errors.New("graph partitioning tool not found")

// Partitioner splits the graph with a graph-partitioning tool, the Scotch
// and METIS baselines of Tarnawski et al. (section 6, appendix F): the
// colocation units become vertices weighted by their accelerator time,
// joined by undirected edges weighted by the communication between them (a
// producer's output cost, on the edge to each consumer unit), and the tool
// cuts the graph into one balanced part per accelerator, minimising the
// weight of cut edges. Units an accelerator cannot run go to the first CPU.
// The tools run as commands (gpmetis from Debian's metis, scotch_gpart from
// scotch): the graph file is written, the tool run, its partition read.
// The split is scored in the max-load model; partitions are usually not
// contiguous and not memory-aware.
type Partitioner struct {
	tool   string // "metis" or "scotch"
	binary string
	pipe   maxload.PipelineOptions
}

// NewMETIS makes the metis placer (options: METISArgs).
func NewMETIS(a METISArgs) (placers.Placer, error) {
	return &Partitioner{tool: "metis", binary: a.Bin, pipe: a.Pipeline}, nil
}

// NewScotch makes the scotch placer (options: ScotchArgs).
func NewScotch(a ScotchArgs) (placers.Placer, error) {
	return &Partitioner{tool: "scotch", binary: a.Bin, pipe: a.Pipeline}, nil
}

// Name implements placers.Placer.
func (p *Partitioner) Name() string { return p.tool }

// Place implements placers.Placer.
func (p *Partitioner) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	plan, _, err := p.PlaceReport(ctx, req)
	return plan, err
}

// PlaceReport implements placers.Reporter.
func (p *Partitioner) PlaceReport(ctx context.Context, req *placers.Request) (*engine.Plan, *placers.Report, error) {
	if _, err := req.Graph.TopoOrder(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.tool, err)
	}
	bin, err := exec.LookPath(p.binary)
	if err != nil {
		pkg := map[string]string{"metis": "metis", "scotch": "scotch"}[p.tool]
		return nil, nil, fmt.Errorf("%w: %s needs %q (install the Debian package %s): %v", ErrNoPartitioner, p.tool, p.binary, pkg, err)
	}
	m, err := maxload.New(req)
	if err != nil {
		return nil, nil, err
	}
	pg := newPartGraph(m)
	part := make([]int, pg.n) // accelerator per vertex
	if m.K() > 1 && pg.n > 1 {
		if part, err = p.run(ctx, bin, pg, m.K(), req.Seed); err != nil {
			return nil, nil, err
		}
	}
	assign := make([]int, len(m.Graph.Ops))
	for v, ops := range pg.units {
		d := part[v]
		if pg.cpuOnly[v] {
			if m.L() == 0 {
				return nil, nil, fmt.Errorf("infeasible: op %q cannot run on an accelerator and cluster %q has no CPU device: %w", m.Graph.Ops[ops[0]].Name, m.Cluster.Name, placers.ErrDoesNotFit)
			}
			d = m.K()
		}
		for _, op := range ops {
			assign[op] = d
		}
	}
	rep, err := m.Report(assign, "max-load", nil)
	if err != nil {
		// not memory-aware: report the split as it is
		loads, _ := m.Loads(assign)
		ml, at := maxload.MaxLoad(loads)
		rep = &placers.Report{Objective: "max-load", Value: ml, MaxLoad: ml, Bottleneck: m.DeviceName(at), Explain: m.Explain(assign),
			Notes: []string{fmt.Sprintf("the partition does not fit the devices: %v", err)}}
	}
	plan := m.Plan(assign)
	p.pipe.Apply(plan, m.Graph.Batch)
	return plan, rep, nil
}

// partGraph is the undirected, weighted graph of colocation units.
type partGraph struct {
	n       int
	units   [][]int
	cpuOnly []bool
	vw      []int64         // vertex weights (scaled accelerator time)
	adj     []map[int]int64 // edge weights (scaled communication)
	edges   int
}

// newPartGraph builds the unit graph with integer weights: the largest
// vertex or edge weight becomes about 1e6 (the tools take 32-bit integers).
func newPartGraph(m *maxload.Model) *partGraph {
	unitOf, units := placers.Groups(m.Graph)
	pg := &partGraph{n: len(units), units: units, cpuOnly: make([]bool, len(units)), vw: make([]int64, len(units)), adj: make([]map[int]int64, len(units))}
	vt := make([]float64, pg.n)
	for v, ops := range units {
		pg.adj[v] = map[int]int64{}
		for _, op := range ops {
			if math.IsInf(m.AccTime[op], 1) {
				pg.cpuOnly[v] = true
				continue
			}
			vt[v] += m.AccTime[op]
		}
	}
	type pair struct{ a, b int }
	ew := map[pair]float64{}
	maxW := 0.0
	for _, t := range vt {
		maxW = math.Max(maxW, t)
	}
	for _, h := range m.Comm {
		r := unitOf[h.Ops[0]]
		seen := map[int]bool{}
		for _, op := range h.Ops[1:] {
			s := unitOf[op]
			if s == r || seen[s] {
				continue
			}
			seen[s] = true
			a, b := min(r, s), max(r, s)
			ew[pair{a, b}] += h.Cost
			maxW = math.Max(maxW, ew[pair{a, b}])
		}
	}
	scale := 1.0
	if maxW > 0 {
		scale = 1e6 / maxW
	}
	for v, t := range vt {
		pg.vw[v] = max(1, int64(math.Round(t*scale)))
	}
	for e, w := range ew {
		iw := max(1, int64(math.Round(w*scale)))
		pg.adj[e.a][e.b] = iw
		pg.adj[e.b][e.a] = iw
		pg.edges++
	}
	return pg
}

// run writes the graph, runs the tool for k parts and reads the partition.
func (p *Partitioner) run(ctx context.Context, bin string, pg *partGraph, k int, seed uint64) ([]int, error) {
	dir, remove, err := scratch.MkdirTemp(ctx, "placesim-"+p.tool+"-")
	if err != nil {
		return nil, err
	}
	defer remove()
	var cmd *exec.Cmd
	var out string
	graph := filepath.Join(dir, "graph")
	switch p.tool {
	case "metis":
		if err := os.WriteFile(graph, pg.metis(), 0o644); err != nil {
			return nil, err
		}
		cmd = exec.CommandContext(ctx, bin, fmt.Sprintf("-seed=%d", seed%(1<<31)), graph, strconv.Itoa(k))
		out = fmt.Sprintf("%s.part.%d", graph, k)
	default:
		if err := os.WriteFile(graph, pg.scotch(), 0o644); err != nil {
			return nil, err
		}
		out = filepath.Join(dir, "map")
		// -Cd: deterministic; the seed has no effect on scotch_gpart
		cmd = exec.CommandContext(ctx, bin, strconv.Itoa(k), graph, out, "-Cd")
	}
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %s failed: %v: %s", p.tool, filepath.Base(bin), err, strings.TrimSpace(log.String()))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("%s: no partition written: %v: %s", p.tool, err, strings.TrimSpace(log.String()))
	}
	part, err := p.parse(data, pg.n, k)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.tool, err)
	}
	return part, nil
}

// metis writes the METIS graph format: "n m 011", then per vertex its
// weight and (neighbour, edge weight) pairs, vertices numbered from 1.
func (pg *partGraph) metis() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d %d 011\n", pg.n, pg.edges)
	for v := 0; v < pg.n; v++ {
		fmt.Fprintf(&b, "%d", pg.vw[v])
		for _, u := range sortedKeys(pg.adj[v]) {
			fmt.Fprintf(&b, " %d %d", u+1, pg.adj[v][u])
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// scotch writes the Scotch source graph format: version 0, vertex and arc
// counts, base 0 and flags 011 (edge and vertex weights), then per vertex
// its weight, degree and (edge weight, neighbour) pairs.
func (pg *partGraph) scotch() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "0\n%d %d\n0 011\n", pg.n, 2*pg.edges)
	for v := 0; v < pg.n; v++ {
		fmt.Fprintf(&b, "%d %d", pg.vw[v], len(pg.adj[v]))
		for _, u := range sortedKeys(pg.adj[v]) {
			fmt.Fprintf(&b, " %d %d", pg.adj[v][u], u)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// parse reads a partition: METIS writes one part per line; Scotch a count
// then "vertex part" lines.
func (p *Partitioner) parse(data []byte, n, k int) ([]int, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	part := make([]int, n)
	seen := make([]bool, n)
	line := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		line++
		v, field := line-1, f[0]
		if p.tool == "scotch" {
			if line == 1 {
				continue // the count
			}
			if len(f) != 2 {
				return nil, fmt.Errorf("mapping line %d: %q (want \"vertex part\")", line, sc.Text())
			}
			var err error
			if v, err = strconv.Atoi(f[0]); err != nil {
				return nil, fmt.Errorf("mapping line %d: vertex %q", line, f[0])
			}
			field = f[1]
		}
		d, err := strconv.Atoi(field)
		if err != nil || d < 0 || d >= k || v < 0 || v >= n {
			return nil, fmt.Errorf("partition line %d: %q (want a part in [0, %d) for a vertex in [0, %d))", line, sc.Text(), k, n)
		}
		part[v], seen[v] = d, true
	}
	for v, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("partition misses vertex %d of %d", v, n)
		}
	}
	return part, nil
}

func sortedKeys(m map[int]int64) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
