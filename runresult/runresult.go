// Package runresult owns the result of a run (Record) and the one
// versioned results.json schema: the point (workload, cluster, settings,
// placer, seed, regime), what the placer did (fallback, relaxed
// constraints, rewritten graph, max-load) and what the engine measured
// (step time, throughput, peak memory, OOM, bytes moved), in seconds and
// bytes. Every command builds its results as Records, package reports
// renders them, check reads them back. It also holds the other results
// the CLI prints (Placement, WorkloadStats), so that study makes them and
// reports renders them with one definition. It imports only the engine's
// (engine, engine/llm) and the workloads' types, so that every layer can
// read and write results.
package runresult

import (
	"encoding/json"
	"fmt"
	"strings"

	"placesim/engine"
	"placesim/engine/llm"
	"placesim/workloads"
)

// Setting is one what-if setting of a point: a parameter and its value
// (see study.ApplySettings for the parameters).
type Setting struct {
	Param string `json:"param" yaml:"param"`
	Value string `json:"value" yaml:"value"`
}

// String is the setting as param=value.
func (s Setting) String() string { return s.Param + "=" + s.Value }

// Point is one run of a scenario.
type Point struct {
	Index    int       `json:"index"`
	Workload string    `json:"workload"`
	Cluster  string    `json:"cluster"`
	Settings []Setting `json:"settings,omitempty"`
	Placer   string    `json:"placer"`
	Seed     uint64    `json:"seed"`
	// Regime is the execution regime the point is played in (ParseRegime
	// syntax; "" in results recorded before regimes: not comparable).
	Regime string `json:"regime"`
}

// Key identifies a point across runs (for regression checks and merges).
func (p Point) Key() string {
	var s []string
	for _, x := range p.Settings {
		s = append(s, x.String())
	}
	r := p.Regime
	if r == "" {
		r = "unrecorded"
	}
	return fmt.Sprintf("%s | %s | %s | %s | seed %d | regime %s", p.Placer, p.Workload, p.Cluster, strings.Join(s, ","), p.Seed, r)
}

// Record is the one result of a run: what the placer did and what the
// engine measured (seconds and bytes throughout). Its JSON (MarshalJSON)
// is the deterministic record of one point in results.json: same scenario
// and seed, same bytes; wall-clock measurements are kept apart (PlaceTime,
// written to results.timings.json as Timing) and so is what only a live
// run holds (the engine's Result, the Plan, the Graph), which package
// reports renders (tables, traces, charts) and a record read back from a
// file lacks. Point.Workload is the workload's spec in a results file and
// the graph's name in a live run.
type Record struct {
	Point
	StepTime   float64     `json:"stepTime"`
	Throughput float64     `json:"throughput"`
	PeakMemory []int64     `json:"peakMemory"`
	Capacity   []int64     `json:"capacity"`
	OOM        *engine.OOM `json:"oom"`
	BytesMoved int64       `json:"bytesMoved"`
	Transfers  int         `json:"transfers"`
	Error      string      `json:"error,omitempty"`
	// OrderRelaxed: the pipeline schedule's strict order deadlocked on
	// this graph and was played as a priority (engine.Result.OrderRelaxed).
	OrderRelaxed bool `json:"orderRelaxed,omitempty"`
	// NotComparable says why the placer's plan cannot be played in the
	// point's regime (not simulated, not ranked, not checked).
	NotComparable string `json:"notComparable,omitempty"`
	// RegimeNote says when the placer's plan is played outside the
	// regime its placer declared ("max-load split (made for a pipeline)
	// played as step").
	RegimeNote string `json:"regimeNote,omitempty"`
	// MaxLoad is the placer's own max-load (seconds per sample) for placers
	// that report one (placers.Reporter): the objective Tarnawski et al.
	// Table 1 compares, independent of the regime.
	MaxLoad *float64 `json:"maxLoad,omitempty"`
	// Fallback, when set, says the placer returned a fallback instead of
	// its own result (placers.Report.Fallback: "m-ETF warm start; CBC:
	// <reason>").
	Fallback string `json:"fallback,omitempty"`
	// Relaxed lists the constraints the placer relaxed to find a plan
	// (placers.Report.Relaxed).
	Relaxed []string `json:"relaxed,omitempty"`
	// Rewritten, when set, says the placer rewrote the graph (splitting,
	// fusion); Graph is then the rewritten graph, the one that ran.
	Rewritten string `json:"rewritten,omitempty"`
	// LLM holds a large-model training point's figures (a layout
	// search's candidate: tokens/s/GPU, MFU, ...), nil otherwise.
	LLM *LLMFigures `json:"llm,omitempty"`

	// PlaceTime is the placer's wall time in seconds; nil in reproducible
	// mode and in a record read from results.json (Timing keeps it apart).
	PlaceTime *float64 `json:"-"`
	// Result is the engine's result of the run (per-device and per-link
	// figures, pipeline and data-parallel stats, the trace when asked);
	// nil when the run was not simulated or was read from a file.
	Result *engine.Result `json:"-"`
	// Plan is the plan that was played; nil when the placer failed.
	Plan *engine.Plan `json:"-"`
	// Graph is the graph the plan ran on: the workload, or the placer's
	// rewritten graph (Rewritten).
	Graph *workloads.Graph `json:"-"`
}

// LLMFigures are a large-model training record's figures beyond step
// time and throughput (sequences/s): a layout search's candidate, a
// layout scenario's point, train's and simulate --layout's iteration, a
// sweep --layout point. Fields after Stages are written only where a
// command fills them (absent in older files: additive, same Version).
type LLMFigures struct {
	// Layout is the parallel layout (parallel.Parse syntax).
	Layout string `json:"layout"`
	// TokensPerSecPerGPU, ModelTFLOPsPerGPU, MFU, HFU and Bubble are
	// engine/llm's Result's.
	TokensPerSecPerGPU float64 `json:"tokensPerSecPerGPU"`
	ModelTFLOPsPerGPU  float64 `json:"modelTFLOPsPerGPU"`
	MFU                float64 `json:"mfu"`
	HFU                float64 `json:"hfu"`
	Bubble             float64 `json:"bubble"`
	// ExposedComm is the communication time per kind (TP, CP, EP, PP,
	// DP) the slowest rank's compute stream waited for, in seconds.
	ExposedComm map[string]float64 `json:"exposedComm,omitempty"`
	// Stages is the layers of each virtual stage.
	Stages []int `json:"stages,omitempty"`
	// System is the cluster the point ran on, by name, after its
	// settings (a sweep's system.KEY value), when it differs from the
	// point's cluster spec or the command reports it.
	System string `json:"system,omitempty"`
	// GPUs and GlobalBatch (sequences per iteration) are the layout's.
	GPUs        int `json:"gpus,omitempty"`
	GlobalBatch int `json:"globalBatch,omitempty"`
	// ExposedByLink is where the exposed DP and PP time went, per link
	// class (train, simulate --layout).
	ExposedByLink *LinkExposure `json:"exposedByLink,omitempty"`
	// Memory is each pipeline rank's memory breakdown (train, simulate
	// --layout); PeakMemory and Capacity hold its peaks and capacities.
	Memory []llm.Memory `json:"memory,omitempty"`
	// Notes are the simulation's notes (a data-parallel group spread
	// unevenly over NVLink domains, the stage planner's notes).
	Notes []string `json:"notes,omitempty"`
}

// LinkExposure is engine/llm's LinkExposure as results write it: the
// pipeline rank whose exposure is reported, the exposed DP and PP
// seconds per link class (nvlink, adapters, leafUplinks), the class of
// the rank's data-parallel groups and of its pipeline sends, whether PP
// was found transfer by transfer; Error when it could not be found.
type LinkExposure struct {
	Rank     int                `json:"rank"`
	DP       map[string]float64 `json:"DP,omitempty"`
	PP       map[string]float64 `json:"PP,omitempty"`
	Exact    bool               `json:"exact"`
	DPGroups string             `json:"dpGroups,omitempty"`
	PPFrom   string             `json:"ppFrom,omitempty"`
	PPTo     string             `json:"ppTo,omitempty"`
	Error    string             `json:"error,omitempty"`
}

// MarshalJSON writes the record with stepTime and throughput null when
// the point was not simulated (an error, or not comparable in its
// regime), so that no reader mistakes a failure for a step of 0 s.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record
	v := struct {
		plain
		StepTime   *float64 `json:"stepTime"`
		Throughput *float64 `json:"throughput"`
	}{plain: plain(r)}
	if r.Error == "" && r.NotComparable == "" {
		v.StepTime, v.Throughput = &r.StepTime, &r.Throughput
	}
	return json.Marshal(v)
}

// Failed reports whether the point errored or ran out of memory.
func (r *Record) Failed() bool { return r.Error != "" || r.OOM != nil }

// Notes are the facts about the record beyond its figures, in the one
// order every view lists them (compare's and run's numbered footnotes,
// simulate's note lines): why it is not comparable in its regime, the
// graph the placer rewrote, the placer's fallback ("fallback: ..."), the
// constraints it relaxed ("relaxed: a, b"). Error and RegimeNote are not
// among them: a view shows the error first (as its status's first
// footnote, or its own line), and the regime note after the notes (the
// tables group it over the records it applies to).
func (r *Record) Notes() []string {
	var ns []string
	if r.NotComparable != "" {
		ns = append(ns, r.NotComparable)
	}
	if r.Rewritten != "" {
		ns = append(ns, r.Rewritten)
	}
	if r.Fallback != "" {
		ns = append(ns, "fallback: "+r.Fallback)
	}
	if len(r.Relaxed) > 0 {
		ns = append(ns, "relaxed: "+strings.Join(r.Relaxed, ", "))
	}
	return ns
}

// MaxPeak is the largest peak memory over the devices.
func (r *Record) MaxPeak() int64 {
	var m int64
	for _, p := range r.PeakMemory {
		m = max(m, p)
	}
	return m
}

// Timing is a point's placement wall time in seconds.
type Timing struct {
	Index     int     `json:"index"`
	PlaceTime float64 `json:"placeTime"`
}

// Format and Version identify results.json files of this
// placesim's result format; study.ReadResults refuses any other (a baseline from
// another format version cannot be compared point for point). Version 3:
// maxLoad in seconds per sample (was ms), a stamp, and null step time and
// throughput for a point not simulated; version 2: every point carries its
// execution regime (Point.Regime), part of its key; version 1 results
// played placers in mixed regimes.
const (
	Format  = "placesim-results"
	Version = 3
)

// File is the one results.json schema that compare, run, sweep and merge
// write and check reads: Format and Version, the stamp, the scenario that
// produced it (S: package study's Scenario) and one record per point.
type File[S any] struct {
	// Format and Version are Format and Version; set when encoded.
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Stamp says which placesim wrote the file, with which command and
	// when (absent in files written before stamps).
	Stamp    *Stamp `json:"stamp,omitempty"`
	Scenario S      `json:"scenario"`
	// Warnings are the import warnings of the scenario's workloads, by
	// workload spec (a lenient import's placeholders, an msr-fiddle
	// file's unknown fields: workloads.Graph.Warnings); absent when none.
	Warnings map[string][]string `json:"warnings,omitempty"`
	// Shard is "i/N" for a shard's partial results, empty when complete.
	Shard   string   `json:"shard,omitempty"`
	Records []Record `json:"records"`
}

// Stamp says which placesim wrote a results file, with which command and
// when; report captions repeat it.
type Stamp struct {
	// Placesim is the build (Version).
	Placesim string `json:"placesim"`
	// Command is the command that wrote the file: compare, run, sweep or
	// merge.
	Command string `json:"command"`
	// Date is when, in UTC (RFC 3339); SOURCE_DATE_EPOCH, when set, fixes
	// it (reproducible builds' convention); empty in a reproducible
	// comparison.
	Date string `json:"date,omitempty"`
}

// String is the stamp as a caption: "placesim VERSION compare, DATE".
func (s *Stamp) String() string {
	if s == nil {
		return ""
	}
	out := "placesim " + s.Placesim + " " + s.Command
	if s.Date != "" {
		out += ", " + s.Date
	}
	return out
}
