package reports

import (
	"sort"

	"placesim/engine"
	"placesim/workloads"
)

// Outcome is the result of one run: the JSON row of compare, the object
// simulate --json prints. Times are seconds, sizes bytes.
type Outcome struct {
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
	Pipeline     *engine.PipelineStats     `json:"pipeline,omitempty"`
	DataParallel *engine.DataParallelStats `json:"dataParallel,omitempty"`
	// MaxLoad is the placer's predicted time per sample in the max-load
	// model of Tarnawski et al., in seconds per sample, for placers that report
	// one (placers.Reporter); absent otherwise.
	MaxLoad *float64 `json:"maxLoad,omitempty"`
	// RegimeNote says when the placer's plan is played outside the regime
	// its placer declared ("max-load split (made for a pipeline) played as
	// step").
	RegimeNote string `json:"regimeNote,omitempty"`
	// NotComparable, when set, says why the placer's plan cannot be played
	// in Regime; the run was not simulated and is not ranked.
	NotComparable string `json:"notComparable,omitempty"`
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

	Result *engine.Result `json:"-"`
	Plan   *engine.Plan   `json:"-"`
	// Graph is the graph the plan ran on: the workload, or the placer's
	// rewritten graph (Rewritten).
	Graph *workloads.Graph `json:"-"`
}

// Failed reports whether the run errored or ran out of memory.
func (o *Outcome) Failed() bool { return o.Error != "" || o.OOM != nil }

// SortOutcomes orders rows for a comparison: by regime, then within a
// regime runs that completed within memory by step time, then
// out-of-memory runs by step time, then runs that failed with an error,
// then runs not comparable in their regime; ties by placer name.
func SortOutcomes(rows []*Outcome) {
	class := func(o *Outcome) int {
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
