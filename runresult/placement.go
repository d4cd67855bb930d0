package runresult

import "placesim/engine"

// Placement is what study.Place returns of one placement (placesim
// place prints it: its JSON with --format json, reports.WritePlacement
// otherwise). Times are seconds throughout (MaxLoad, ObjectiveValue and PeriodPerSample per
// sample).
type Placement struct {
	Placer   string `json:"placer"`
	Workload string `json:"workload"`
	Cluster  string `json:"cluster"`
	Seed     uint64 `json:"seed"`
	// MaxLoad is the max-load of the split in seconds per sample
	// (max-load placers only).
	MaxLoad        *float64 `json:"maxLoad,omitempty"`
	Objective      string   `json:"objective,omitempty"`
	ObjectiveValue *float64 `json:"objectiveValue,omitempty"`
	Bottleneck     string   `json:"bottleneck,omitempty"`
	// Ideals and DPTableBytes: the ideals a DP over ideals enumerated and
	// the memory of its table (tarnawski-dp, tarnawski-dpl).
	Ideals       int      `json:"ideals,omitempty"`
	DPTableBytes int64    `json:"dpTableBytes,omitempty"`
	PlaceTime    *float64 `json:"placeTime"`
	// Regime is how the plan plays (study.PlanRegime: the pipeline or data
	// parallelism its placer attached, else "step").
	Regime string `json:"regime"`
	// Fallback and Relaxed: what the placer returned instead of its own
	// result, and the constraints it relaxed (placers.Report).
	Fallback string   `json:"fallback,omitempty"`
	Relaxed  []string `json:"relaxed,omitempty"`
	// Rewritten says the placer rewrote the graph (splitting, fusion): the
	// split lists the rewritten graph's ops.
	Rewritten string `json:"rewritten,omitempty"`
	// StepTime, Throughput, PeakMemory and OOM come from simulating the
	// plan once; PeriodPerSample (seconds per sample) from its pipeline,
	// if it has one.
	StepTime        float64          `json:"stepTime"`
	Throughput      float64          `json:"throughput"`
	PeriodPerSample *float64         `json:"periodPerSample,omitempty"`
	PeakMemory      []int64          `json:"peakMemory"`
	OOM             *engine.OOM      `json:"oom"`
	Placement       []PlacementShare `json:"placement"`
	Notes           []string         `json:"notes,omitempty"`
	// Error is set when the plan could not be simulated.
	Error string `json:"error,omitempty"`
	// Warnings say what the workload's import ignored (unknown fields).
	Warnings []string `json:"warnings,omitempty"`
	// Explain is the placer's per-device breakdown (not in JSON).
	Explain string `json:"-"`
}

// PlacementShare is one device's share of the split.
type PlacementShare struct {
	Device string `json:"device"`
	// Load in ms per sample (max-load placers only).
	Load   *float64 `json:"load,omitempty"`
	Memory *int64   `json:"memory,omitempty"`
	Ops    []string `json:"ops"`
}
