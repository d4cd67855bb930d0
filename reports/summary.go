package reports

import (
	"fmt"
	"strings"

	"placesim/runresult"
)

// sorted returns a copy of rows in study.SortOutcomes order, so that every
// report lists placers the same way whatever order it was given.
func sorted(rows []*runresult.Record) []*runresult.Record {
	s := append([]*runresult.Record(nil), rows...)
	SortOutcomes(s)
	return s
}

// simulated reports whether o has simulation figures (it may be an OOM).
func simulated(o *runresult.Record) bool { return o.Error == "" && len(o.PeakMemory) > 0 }

// maxPeak returns the device whose peak memory is the largest fraction of
// its capacity, with that peak and capacity; dev is -1 when o has none.
func maxPeak(o *runresult.Record) (dev int, peak, capacity int64) {
	dev = -1
	best := -1.0
	for i, p := range o.PeakMemory {
		var c int64
		if i < len(o.Capacity) {
			c = o.Capacity[i]
		}
		f := float64(p)
		if c > 0 {
			f = float64(p) / float64(c)
		}
		if f > best {
			best, dev, peak, capacity = f, i, p, c
		}
	}
	return dev, peak, capacity
}

// percent is 100*a/b, 0 when b is 0.
func percent(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// deviceName is o's name for device i ("dev<i>" when unknown).
func deviceName(o *runresult.Record, i int) string {
	if devs := resultOf(o).Devices; i >= 0 && i < len(devs) {
		return devs[i].Name
	}
	return fmt.Sprintf("dev%d", i)
}

// status is the short state of a run: "ok", "OOM on gpu0" or "error".
func status(o *runresult.Record) string {
	switch {
	case o.NotComparable != "":
		return "not comparable"
	case o.Error != "":
		return "error"
	case o.OOM != nil:
		return "OOM on " + o.OOM.DeviceName
	}
	return "ok"
}

// Execution says how a run played its step: "step" (one pass of the
// graph), "1f1b x16" (a pipeline schedule and its micro-batches), "dp x8"
// (data-parallel replicas), or both. Pipelined and data-parallel rows gain
// from overlapping micro-batches or replicas, so the table shows it.
// "order relaxed" says the schedule's strict order deadlocked on the graph
// and was played as a priority (engine.Result.OrderRelaxed).
func Execution(o *runresult.Record) string {
	if o.NotComparable != "" {
		return "(" + regimeOf(o) + ")"
	}
	if !simulated(o) {
		return "-"
	}
	var parts []string
	if p := resultOf(o).Pipeline; p != nil {
		parts = append(parts, fmt.Sprintf("%s x%d", p.Schedule, p.MicroBatches))
	}
	if d := resultOf(o).DataParallel; d != nil {
		parts = append(parts, fmt.Sprintf("dp x%d", d.Replicas))
	}
	if len(parts) == 0 {
		return "step"
	}
	if o.OrderRelaxed {
		parts = append(parts, "order relaxed")
	}
	return strings.Join(parts, ", ")
}
