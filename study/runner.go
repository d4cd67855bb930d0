package study

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"placesim/devices"
	"placesim/placers"
	"placesim/reports"
	"placesim/runresult"
	"placesim/workloads"
)

// Record is the one result of a run, a point's record in results.json
// (runresult.Record).
type Record = runresult.Record

// Timing is a point's placement wall time (runresult.Timing).
type Timing = runresult.Timing

// ResultsFormat and ResultsVersion identify results.json files of this
// placesim's result format (runresult.Format, runresult.Version);
// ReadResults refuses any other.
const (
	ResultsFormat  = runresult.Format
	ResultsVersion = runresult.Version
)

// Results is what compare, run, sweep and merge write as results.json:
// the one results schema (runresult.File) with the scenario that made it.
type Results = runresult.File[*Scenario]

// Shard selects every N-th point starting at I (0-based).
type Shard struct{ I, N int }

// ParseShard parses "i/N" with 0 <= i < N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q (valid: i/N with 0 <= i < N, e.g. 0/4)", s)
	}
	return Shard{i, n}, nil
}

// ShardFromEnv reads the array index a batch system gives each task:
// JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID
// (Slurm job array, with SLURM_ARRAY_TASK_COUNT), given n shards (n = 0:
// take SLURM_ARRAY_TASK_COUNT). ok is false when neither is set.
func ShardFromEnv(n int) (Shard, bool, error) {
	idx, src := os.Getenv("JOB_COMPLETION_INDEX"), "JOB_COMPLETION_INDEX"
	if idx == "" {
		idx, src = os.Getenv("SLURM_ARRAY_TASK_ID"), "SLURM_ARRAY_TASK_ID"
		if n == 0 {
			if c := os.Getenv("SLURM_ARRAY_TASK_COUNT"); c != "" {
				n, _ = strconv.Atoi(c)
			}
		}
	}
	if idx == "" {
		return Shard{}, false, nil
	}
	i, err := strconv.Atoi(idx)
	if err != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, false, &FieldError{Field: "shards", Msg: fmt.Sprintf("%s=%q with %d shards", src, idx, n), Valid: "N with 0 <= index < N"}
	}
	return Shard{i, n}, true, nil
}

// RunOptions configure RunScenario.
type RunOptions struct {
	Registry *placers.Registry
	// Dir holds the run's files; finished points are appended to a journal
	// there as they complete, so a killed run resumes where it stopped.
	Dir string
	// Shard, when N > 1, runs only this shard's points.
	Shard Shard
	// Workers bounds parallel points (default GOMAXPROCS).
	Workers int
	// Progress, if set, is called after each point with done and total.
	Progress func(done, total int, p Point)
	// Options are placer options from the command line (--opt), the only
	// place options that name an executable or a directory may come from
	// (see TrustBoundary). They are added to the scenario's placerOptions
	// (winning over them) and never recorded in the results.
	Options placers.Options
	// MaxMemory bounds the memory each simulation may take for itself
	// (Spec.MaxMemory; 0: the engine's default).
	MaxMemory int64
	// Notice, if set, is told about journaled points that are re-run
	// because their inputs changed.
	Notice func(msg string)
	// Stamp, if set, is written into the results file (RunToDir).
	Stamp *Stamp
	// Start, if set, is called as each point starts, never concurrently
	// with itself or Progress.
	Start func(p Point)
	// Warn, if set, is told each workload's import warnings (a lenient
	// import's placeholders and skipped fields, workloads.Graph.Warnings)
	// once, in the order the points name the workloads, before any point
	// runs.
	Warn func(workload string, warnings []string)
}

func (o *RunOptions) journal() string {
	if o.Shard.N > 1 {
		return filepath.Join(o.Dir, fmt.Sprintf("journal-%d-of-%d.jsonl", o.Shard.I, o.Shard.N))
	}
	return filepath.Join(o.Dir, "journal.jsonl")
}

// ResultsFile is the name of a (shard's) results file in the run directory.
func (o *RunOptions) ResultsFile() string {
	if o.Shard.N > 1 {
		return filepath.Join(o.Dir, fmt.Sprintf("results-%d-of-%d.json", o.Shard.I, o.Shard.N))
	}
	return filepath.Join(o.Dir, "results.json")
}

// journalLine is one finished point in the journal.
type journalLine struct {
	Record    Record  `json:"record"`
	PlaceTime float64 `json:"placeTime"`
	// Inputs are the hashes of what determined the record.
	Inputs *PointInputs `json:"inputs,omitempty"`
}

// RunScenario runs the scenario's points (this shard's), skipping those
// already in the journal, in parallel; it returns the results sorted by
// point index and the timings of the points run now or before.
func RunScenario(ctx context.Context, s *Scenario, o RunOptions) (*Results, []Timing, error) {
	if o.Workers < 0 || o.Workers > MaxWorkers {
		return nil, nil, fmt.Errorf("workers = %d (valid range: 0 for the number of cores, up to %d)", o.Workers, MaxWorkers)
	}
	if err := s.Validate(o.Registry); err != nil {
		return nil, nil, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	all, err := s.Points(o.Registry)
	if err != nil {
		return nil, nil, err
	}
	var pts []Point
	for _, p := range all {
		if o.Shard.N <= 1 || p.Index%o.Shard.N == o.Shard.I {
			pts = append(pts, p)
		}
	}
	local, err := resolveLocal(o.Registry, all, o.Options)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("run directory: %w", err)
	}
	cache := newInputCache()
	if err := preflight(pts, cache); err != nil {
		return nil, nil, err
	}
	warnings := warnWorkloads(pts, cache, o.Warn)
	version := Version()
	want := make(map[int]PointInputs, len(pts))
	for _, p := range pts {
		want[p.Index] = cache.pointInputs(o.Registry, s, p, mergeOptions(s.PlacerOptions[p.Placer], local[p.Placer]), o.MaxMemory, version)
	}
	jf, done, stale, err := openJournal(o.journal(), all, want)
	if err != nil {
		return nil, nil, err
	}
	defer jf.Close()
	if len(stale) > 0 && o.Notice != nil {
		o.Notice(staleMessage(stale))
	}
	timeout, _ := s.timeout()
	// the scenario's regimes, typed once, by the name its points carry
	rs, err := s.regimes()
	if err != nil {
		return nil, nil, err
	}
	regimes := make(map[string]Regime, len(rs))
	for _, r := range rs {
		regimes[r.String()] = r
	}
	var todo []Point
	for _, p := range pts {
		if _, ok := done[p.Index]; !ok {
			todo = append(todo, p)
		}
	}
	finished := len(pts) - len(todo)
	pool := workPool[Point]{Workers: o.Workers, Journal: jf, Start: o.Start,
		Work: func(p Point) (journalLine, bool) {
			line, complete := runPoint(ctx, s, p, regimes[p.Regime], o.Registry, cache, timeout, local[p.Placer], o.MaxMemory)
			if complete { // else interrupted: left for the next run
				in := want[p.Index]
				line.Inputs = &in
			}
			return line, complete
		},
		Done: func(p Point, line journalLine) {
			done[p.Index] = line
			finished++
			if o.Progress != nil {
				o.Progress(finished, len(pts), p)
			}
		}}
	if err := pool.run(ctx, todo); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("run interrupted (%d of %d points done; re-run to resume): %w", len(done), len(pts), err)
	}
	res := &Results{Scenario: s, Warnings: warnings}
	if o.Shard.N > 1 {
		res.Shard = fmt.Sprintf("%d/%d", o.Shard.I, o.Shard.N)
	}
	var timings []Timing
	for _, p := range pts {
		l := done[p.Index]
		res.Records = append(res.Records, l.Record)
		timings = append(timings, Timing{Index: p.Index, PlaceTime: l.PlaceTime})
	}
	return res, timings, nil
}

// runPoint places and simulates one point; every failure is in the record.
// complete is false when the run was interrupted before the point ended.
func runPoint(ctx context.Context, s *Scenario, p Point, regime Regime, reg *placers.Registry, cache *inputCache, timeout time.Duration, local placers.Options, maxMemory int64) (line journalLine, complete bool) {
	line.Record.Point = p
	complete = true
	defer func() {
		if r := recover(); r != nil {
			line.Record.Error = fmt.Sprintf("panic: %v", r)
		}
	}()
	if regime.Layout != nil {
		// a large-model layout: engine/llm plays the point (layout_run.go)
		pctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		line.Record = runLayoutPoint(pctx, p, regime, reg)
		if ctx.Err() != nil {
			return line, false
		}
		return line, true
	}
	wspec, c, err := cache.cluster(p)
	if err != nil {
		line.Record.Error = err.Error()
		return line, true
	}
	g, err := cache.workload(wspec)
	if err != nil {
		line.Record.Error = err.Error()
		return line, true
	}
	spec := Spec{Placer: p.Placer, Options: mergeOptions(s.PlacerOptions[p.Placer], local), Seed: p.Seed, MaxMemory: maxMemory, Regime: regime}
	if s.Estimates != nil {
		spec.Estimates = devices.EstimateOptions{Mode: devices.EstimateMode(s.Estimates.Mode), Sigma: s.Estimates.Sigma, Seed: p.Seed}
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		o   *Record
		err error
	}
	rc := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				rc <- result{err: fmt.Errorf("panic: %v", r)}
			}
		}()
		o, err := Run(pctx, reg, g, c, spec)
		rc <- result{o, err}
	}()
	var r result
	select {
	case r = <-rc:
	case <-pctx.Done():
		if ctx.Err() != nil {
			return line, false
		}
		line.Record.Error = fmt.Sprintf("timed out after %s", timeout)
		return line, true
	}
	if ctx.Err() != nil && (r.err != nil || r.o.Error != "") {
		return line, false // failed because the run was interrupted
	}
	if r.err != nil {
		line.Record.Error = r.err.Error()
		return line, true
	}
	if r.o.PlaceTime != nil {
		line.PlaceTime = *r.o.PlaceTime
	}
	line.Record = recordOf(p, r.o)
	return line, true
}

// recordOf is run o as the record of point p in a results file: o with
// p's point (the workload's spec, the settings, the index) and without
// what only a live run holds (the engine's result, the plan, the graph:
// a scenario keeps thousands of records, and a file has none of them)
// or its wall time (kept apart: Timing).
func recordOf(p Point, o *Record) Record {
	r := *o
	r.Point = p
	r.PlaceTime, r.Result, r.Plan, r.Graph = nil, nil, nil, nil
	return r
}

// warnWorkloads tells warn (when not nil) each workload's import
// warnings once and returns them by workload spec, nil when there are
// none (a workload that failed to load is its points' error, not a
// warning).
func warnWorkloads(pts []Point, cache *inputCache, warn func(string, []string)) map[string][]string {
	var out map[string][]string
	for _, p := range pts {
		if _, seen := out[p.Workload]; seen {
			continue
		}
		if g, err := cache.workload(p.Workload); err == nil && len(g.Warnings) > 0 {
			if out == nil {
				out = map[string][]string{}
			}
			out[p.Workload] = g.Warnings
			if warn != nil {
				warn(p.Workload, g.Warnings)
			}
		}
	}
	return out
}

// preflight builds each of the points' workloads and clusters (kept in
// cache for the points) and applies each what-if setting alone, and
// refuses a misspelt name (ErrMisspelt: a zoo model or parameter, a
// preset, a what-if target) before any point runs; other failures (a
// missing file) stay the failures of their points.
func preflight(pts []Point, cache *inputCache) error {
	seen := map[string]bool{}
	for _, p := range pts {
		key := p.Workload + "\x00" + p.Cluster
		if !seen[key] {
			seen[key] = true
			if _, err := cache.workload(p.Workload); ErrMisspelt(err) {
				return fmt.Errorf("point %d: %w", p.Index, err)
			}
			if _, _, err := cache.cluster(Point{Workload: p.Workload, Cluster: p.Cluster}); ErrMisspelt(err) {
				return fmt.Errorf("point %d: %w", p.Index, err)
			}
		}
		for _, x := range p.Settings {
			k := key + "\x00" + x.String()
			if seen[k] {
				continue
			}
			seen[k] = true
			_, _, err := cache.cluster(Point{Workload: p.Workload, Cluster: p.Cluster, Settings: []Setting{x}})
			if ErrMisspelt(err) {
				return err // ApplySettings names the what-if
			}
		}
	}
	return nil
}

// resolveLocal distributes the command line's placer options over the
// scenario's placers (see placers.Registry.Resolve).
func resolveLocal(reg *placers.Registry, pts []Point, opts placers.Options) (map[string]placers.Options, error) {
	if len(opts) == 0 {
		return nil, nil
	}
	var names []string
	seen := map[string]bool{}
	for _, p := range pts {
		if !seen[p.Placer] {
			seen[p.Placer] = true
			names = append(names, p.Placer)
		}
	}
	local, err := reg.Resolve(names, opts)
	if err != nil {
		return nil, fieldErr("placer options", err)
	}
	return local, nil
}

// mergeOptions returns base with over's keys added (over wins).
func mergeOptions(base map[string]string, over placers.Options) placers.Options {
	if len(over) == 0 {
		return base
	}
	out := placers.Options{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// inputCache builds each workload and base cluster once per run.
type inputCache struct {
	mu        sync.Mutex
	graphs    map[string]*cached[*workloads.Graph]
	clusters  map[string]*cached[*devices.Cluster]
	hashes    map[string]*cached[string]
	workloadF func(string) (*workloads.Graph, error)
}

type cached[T any] struct {
	once sync.Once
	v    T
	err  error
}

func newInputCache() *inputCache {
	return &inputCache{graphs: map[string]*cached[*workloads.Graph]{}, clusters: map[string]*cached[*devices.Cluster]{}, hashes: map[string]*cached[string]{}, workloadF: LoadWorkload}
}

func getCached[T any](mu *sync.Mutex, m map[string]*cached[T], key string, f func() (T, error)) (T, error) {
	mu.Lock()
	e, ok := m[key]
	if !ok {
		e = &cached[T]{}
		m[key] = e
	}
	mu.Unlock()
	e.once.Do(func() {
		// a loader that panics (a bug) fails every point of that input
		// with the one error, rather than leaving a nil value that the
		// next point dereferences (issue 31)
		defer func() {
			if r := recover(); r != nil {
				var zero T
				e.v, e.err = zero, fmt.Errorf("reading %q failed (a bug, please report): panic: %v", strings.ReplaceAll(key, "\x00", " "), r)
			}
		}()
		e.v, e.err = f()
	})
	return e.v, e.err
}

func (c *inputCache) workload(spec string) (*workloads.Graph, error) {
	return getCached(&c.mu, c.graphs, spec, func() (*workloads.Graph, error) { return c.workloadF(spec) })
}

// cluster returns the point's workload spec and cluster after its settings.
func (c *inputCache) cluster(p Point) (string, *devices.Cluster, error) {
	var hint *workloads.Graph
	if p.Cluster == "" || p.Cluster == WorkloadMachine {
		g, err := c.workload(p.Workload)
		if err != nil {
			return "", nil, err
		}
		hint = g
	}
	base, err := getCached(&c.mu, c.clusters, p.Cluster+"\x00"+p.Workload, func() (*devices.Cluster, error) { return ResolveCluster(p.Cluster, hint) })
	if err != nil {
		return "", nil, err
	}
	return ApplySettings(p.Workload, base, p.Settings)
}

// WriteResults writes results.json (atomically) and the timings beside it.
func WriteResults(path string, r *Results, timings []Timing) error {
	// checked before the file is created: a refused record leaves no
	// temporary file behind
	if err := checkRecordsFinite(r.Records); err != nil {
		return err
	}
	if err := reports.WriteFileAtomicFunc(path, func(w io.Writer) error { return EncodeResults(w, r) }); err != nil {
		return err
	}
	if timings == nil {
		return nil
	}
	tb, _ := json.MarshalIndent(timings, "", "  ")
	return reports.WriteFileAtomic(strings.TrimSuffix(path, ".json")+".timings.json", append(tb, '\n'))
}

// EncodeResults writes results as indented JSON.
func EncodeResults(w io.Writer, r *Results) error {
	r.Format, r.Version = ResultsFormat, ResultsVersion
	if err := checkRecordsFinite(r.Records); err != nil {
		return err
	}
	if len(r.Records) == 0 {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	// One record at a time, in the bytes json.Encoder with indent "  "
	// writes for the whole value: Encoder marshals the whole value into
	// memory, then indents it into a second copy (issue 31: merging
	// 400,000 records, 240 MB of JSON, peaked at 1.6 GB of memory).
	head := *r
	head.Records = []Record{}
	hb, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return err
	}
	const empty = "[]\n}"
	if !bytes.HasSuffix(hb, []byte(empty)) {
		return fmt.Errorf("encode results: records are not the last field (a bug)")
	}
	if _, err := w.Write(append(hb[:len(hb)-len(empty)], "[\n    "...)); err != nil {
		return err
	}
	for i := range r.Records {
		rb, err := json.MarshalIndent(&r.Records[i], "    ", "  ")
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := io.WriteString(w, ",\n    "); err != nil {
				return err
			}
		}
		if _, err := w.Write(rb); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, "\n  ]\n}\n")
	return err
}

// shardSet is the shards a merge has been given (MergeFiles):
// each once, all parts of one split.
type shardSet struct {
	seen map[string]bool
	n    int // parts of the split; 0 before the first shard
}

// add records the shard named s (results.json's shard field), one of n
// parts.
func (ss *shardSet) add(s string, n int) error {
	if ss.seen[s] {
		return fmt.Errorf("merge: shard %s given twice", s)
	}
	if ss.seen == nil {
		ss.seen = map[string]bool{}
	}
	ss.seen[s] = true
	if ss.n == 0 {
		ss.n = n
	} else if n != ss.n {
		return fmt.Errorf("merge: shards of %d and %d parts mixed", ss.n, n)
	}
	return nil
}

// complete fails unless every part of the split was given (or none was
// a shard).
func (ss *shardSet) complete() error {
	if ss.n > 0 && len(ss.seen) != ss.n {
		return fmt.Errorf("merge: %d of %d shards given", len(ss.seen), ss.n)
	}
	return nil
}
