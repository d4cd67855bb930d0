package study

import (
	"placesim/engine"
	"placesim/engine/llm"
	"placesim/runresult"
)

// LayoutRecord is the record of one large-model iteration (engine/llm)
// at point p: the iteration time as the step time, global-batch
// sequences per second as the throughput, each pipeline rank's peak
// memory and capacity, the out-of-memory verdict and the layout's
// figures (LLMFigures: tokens/s/GPU, MFU, exposed communication, ...).
// A layout search's candidates, train, simulate --layout and sweep
// --layout build their records with it.
func LayoutRecord(p Point, j *llm.Job, r *llm.Result) Record {
	rec := Record{Point: p}
	rec.PeakMemory, rec.Capacity = memPeaks(r.Memory)
	if o := r.OOM; o != nil {
		rec.OOM = &engine.OOM{Device: o.Rank, DeviceName: o.Device, Op: -1, OpName: o.Op, What: "simulated peak",
			Requested: o.Bytes, Capacity: o.Capacity}
	}
	rec.StepTime = r.IterationTime
	rec.Throughput = float64(j.Layout.GlobalBatch) / r.IterationTime
	rec.LLM = &LLMFigures{Layout: j.Layout.String(), TokensPerSecPerGPU: r.TokensPerSecPerGPU, ModelTFLOPsPerGPU: r.ModelTFLOPsPerGPU,
		MFU: r.MFU, HFU: r.HFU, Bubble: r.Bubble, ExposedComm: r.ExposedByKind(), Stages: r.Stages,
		GPUs: r.GPUs, GlobalBatch: j.Layout.GlobalBatch}
	return rec
}

// AddLayoutDetail adds to rec (LayoutRecord's) what train and simulate
// --layout report beyond a search's candidate: the system by name, each
// pipeline rank's memory breakdown, the exposed DP and PP time per link
// class and the simulation's notes.
func AddLayoutDetail(rec *Record, j *llm.Job, r *llm.Result) {
	if rec.LLM == nil {
		rec.LLM = &LLMFigures{Layout: j.Layout.String()}
	}
	rec.LLM.System = j.Cluster.Name
	rec.LLM.Memory = r.Memory
	rec.LLM.Notes = r.Notes
	e, err := r.ExposedByLink(j)
	if err != nil {
		rec.LLM.ExposedByLink = &runresult.LinkExposure{Rank: -1, Error: err.Error()}
		return
	}
	m := e.Map()
	rec.LLM.ExposedByLink = &runresult.LinkExposure{Rank: e.Rank, DP: m["DP"], PP: m["PP"], Exact: e.Exact,
		DPGroups: e.DPClass.Key(), PPFrom: e.PPFrom.Key(), PPTo: e.PPTo.Key()}
}
