package reports

import (
	"fmt"

	"placesim/engine"

	"placesim/runresult"
)

// opSpan is one execution of an op on a device: the op itself in a single
// step, or one (op, micro-batch, replica) instance of a pipelined or
// data-parallel run (a recomputation too).
type opSpan struct {
	op, device int
	start, end float64
	// label qualifies the instance ("mb 3", "mb 3 r 1 recompute"); empty
	// for a single step.
	label string
}

// opSpans lists the op executions of a run: every instance when the engine
// unrolled the plan (Result.Instances), else one per op. Zero-time
// collective steps and weight stashes are not op executions and are left
// out (their traffic shows on the link lanes).
func opSpans(o *runresult.Record) []opSpan {
	res := o.Result
	in := res.Instances
	if in == nil {
		spans := make([]opSpan, len(res.OpStart))
		for i := range spans {
			spans[i] = opSpan{op: i, device: o.Plan.Device[i], start: res.OpStart[i], end: res.OpEnd[i]}
		}
		return spans
	}
	var spans []opSpan
	for x, op := range in.Op {
		k := in.Kind[x]
		if op < 0 || (k != engine.NodeCompute && k != engine.NodeRecompute) {
			continue
		}
		label := ""
		if mb := in.MicroBatch[x]; mb >= 0 {
			label = fmt.Sprintf("mb %d", mb)
		}
		if r := in.Replica[x]; r > 0 {
			label += fmt.Sprintf(" r %d", r)
		}
		if k == engine.NodeRecompute {
			label += " recompute"
		}
		spans = append(spans, opSpan{op: int(op), device: int(in.Device[x]), start: in.Start[x], end: in.End[x], label: label})
	}
	return spans
}
