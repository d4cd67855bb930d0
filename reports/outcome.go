package reports

import (
	"sort"

	"placesim/engine"
	"placesim/runresult"
)

// noResult stands for the engine's result of a run that was not
// simulated (or was read back from a results file): no devices, links,
// pipeline or data-parallel figures.
var noResult engine.Result

// resultOf is the engine's result of run o, or an empty one when o was not
// simulated.
func resultOf(o *runresult.Record) *engine.Result {
	if o.Result == nil {
		return &noResult
	}
	return o.Result
}

// outcomeJSON is a run as simulate --format json and compare's JSON rows
// write it (the order of these fields is the output's): the record's
// point, the engine's per-device and per-link figures and its pipeline
// and data-parallel stats, the placement wall time, and what the placer
// did. Times are seconds, sizes bytes.
type outcomeJSON struct {
	Placer   string `json:"placer"`
	Workload string `json:"workload"`
	Cluster  string `json:"cluster"`
	Seed     uint64 `json:"seed"`
	// Regime is the execution regime the run was asked to play in
	// ("step", "1f1b:16", "dp:4", "1f1b:8+dp:2"; see study.ParseRegime):
	// rows are ranked only against rows of the same regime.
	Regime string `json:"regime"`
	// StepTime and Throughput are 0 when the run failed before simulating.
	StepTime   float64 `json:"stepTime"`
	Throughput float64 `json:"throughput"`
	// PeakMemory and Capacity per device, in cluster order.
	PeakMemory []int64     `json:"peakMemory"`
	Capacity   []int64     `json:"capacity"`
	OOM        *engine.OOM `json:"oom"`
	// PlaceTime is the placer's wall time; null in reproducible mode.
	PlaceTime  *float64 `json:"placeTime"`
	BytesMoved int64    `json:"bytesMoved"`
	Transfers  int      `json:"transfers"`
	// Error is set when the placer or the simulation failed.
	Error   string               `json:"error,omitempty"`
	Devices []engine.DeviceStats `json:"devices,omitempty"`
	Links   []engine.LinkStats   `json:"links,omitempty"`
	// Pipeline and DataParallel are the engine's figures for a pipelined
	// or data-parallel run (absent otherwise).
	Pipeline      *engine.PipelineStats     `json:"pipeline,omitempty"`
	DataParallel  *engine.DataParallelStats `json:"dataParallel,omitempty"`
	MaxLoad       *float64                  `json:"maxLoad,omitempty"`
	RegimeNote    string                    `json:"regimeNote,omitempty"`
	NotComparable string                    `json:"notComparable,omitempty"`
	Fallback      string                    `json:"fallback,omitempty"`
	Relaxed       []string                  `json:"relaxed,omitempty"`
	Rewritten     string                    `json:"rewritten,omitempty"`
	// LLM is a large-model iteration's figures (train, simulate
	// --layout, compare --layout).
	LLM *runresult.LLMFigures `json:"llm,omitempty"`
}

// newOutcomeJSON is o as outcomeJSON writes it.
func newOutcomeJSON(o *runresult.Record) *outcomeJSON {
	res := resultOf(o)
	return &outcomeJSON{Placer: o.Placer, Workload: o.Workload, Cluster: o.Cluster, Seed: o.Seed, Regime: o.Regime,
		StepTime: o.StepTime, Throughput: o.Throughput, PeakMemory: o.PeakMemory, Capacity: o.Capacity, OOM: o.OOM,
		PlaceTime: o.PlaceTime, BytesMoved: o.BytesMoved, Transfers: o.Transfers, Error: o.Error,
		Devices: res.Devices, Links: res.Links, Pipeline: res.Pipeline, DataParallel: res.DataParallel,
		MaxLoad: o.MaxLoad, RegimeNote: o.RegimeNote, NotComparable: o.NotComparable,
		Fallback: o.Fallback, Relaxed: o.Relaxed, Rewritten: o.Rewritten, LLM: o.LLM}
}

// SortOutcomes orders rows for a comparison: by regime, then within a
// regime runs that completed within memory by step time, then
// out-of-memory runs by step time, then runs that failed with an error,
// then runs not comparable in their regime; ties by placer name.
func SortOutcomes(rows []*runresult.Record) {
	class := func(o *runresult.Record) int {
		switch {
		case o.NotComparable != "":
			return 3
		case o.Error != "":
			return 2
		case o.OOM != nil:
			return 1
		}
		return 0
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if ra, rb := regimeOf(a), regimeOf(b); ra != rb {
			return ra < rb
		}
		if ca, cb := class(a), class(b); ca != cb {
			return ca < cb
		}
		if a.Error == "" && a.StepTime != b.StepTime {
			return a.StepTime < b.StepTime
		}
		return a.Placer < b.Placer
	})
}
