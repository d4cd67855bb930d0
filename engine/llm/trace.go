package llm

import (
	"encoding/json"
	"fmt"
)

// traceEvent is one Chrome/Perfetto trace event ("X": complete).
type traceEvent struct {
	Name string            `json:"name"`
	Cat  string            `json:"cat"`
	Ph   string            `json:"ph"`
	Ts   float64           `json:"ts"`
	Dur  float64           `json:"dur"`
	Pid  int               `json:"pid"`
	Tid  int               `json:"tid"`
	Args map[string]string `json:"args,omitempty"`
}

// ChromeTrace is r as a Chrome/Perfetto trace (JSON, times in
// microseconds): one process per pipeline rank's representative, with a
// compute thread (the chunks, their blocking collectives inside), a
// data-parallel thread and a pipeline-send thread.
func ChromeTrace(r *Result) ([]byte, error) {
	var evs []any
	for _, rr := range r.Ranks {
		meta := func(tid int, name string) {
			evs = append(evs, map[string]any{"name": "thread_name", "ph": "M", "pid": rr.Rank, "tid": tid, "args": map[string]string{"name": name}})
		}
		evs = append(evs, map[string]any{"name": "process_name", "ph": "M", "pid": rr.Rank, "args": map[string]string{"name": fmt.Sprintf("pipeline rank %d", rr.Rank)}})
		meta(0, "compute")
		meta(1, "data parallel")
		meta(2, "pipeline sends")
		for _, s := range rr.Spans {
			cat := "forward"
			if s.Task.Backward {
				cat = "backward"
			}
			evs = append(evs, traceEvent{Name: s.Task.String(), Cat: cat, Ph: "X", Ts: s.Start * 1e6, Dur: (s.End - s.Start) * 1e6, Pid: rr.Rank, Tid: 0,
				Args: map[string]string{"microBatch": fmt.Sprint(s.Task.MicroBatch), "chunk": fmt.Sprint(s.Task.Chunk)}})
		}
		for _, c := range rr.Comm {
			tid := 1
			if c.Kind == CommPP {
				tid = 2
			}
			evs = append(evs, traceEvent{Name: c.What, Cat: c.Kind.String(), Ph: "X", Ts: c.Start * 1e6, Dur: (c.End - c.Start) * 1e6, Pid: rr.Rank, Tid: tid})
		}
	}
	return json.Marshal(map[string]any{"traceEvents": evs, "displayTimeUnit": "ms"})
}
