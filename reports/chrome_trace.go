package reports

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"placesim/devices"
	"placesim/workloads"

	"placesim/runresult"
)

// Chrome trace (Trace Event Format, as read by chrome://tracing and
// ui.perfetto.dev) process IDs: devices and links are the threads of two
// processes.
const (
	tracePIDDevices = 1
	tracePIDLinks   = 2
)

// TraceEvent is one event of the Chrome/Perfetto Trace Event Format. Times
// are microseconds.
type TraceEvent struct {
	Name string `json:"name"`
	// Cat is the category: the op's type and role, "transfer", "memory".
	Cat string `json:"cat,omitempty"`
	// Ph is the phase: "X" complete event, "C" counter, "M" metadata.
	Ph string  `json:"ph"`
	TS float64 `json:"ts"`
	// Dur is a complete event's duration; absent for other phases.
	Dur *float64 `json:"dur,omitempty"`
	PID int      `json:"pid"`
	TID int      `json:"tid"`
	// Args holds an event's details; a counter's series values.
	Args map[string]any `json:"args,omitempty"`
}

// ChromeTrace writes one traced run as a Chrome/Perfetto trace JSON object
// ({"traceEvents": [...]}): process "devices" has a thread per device with
// each op as a complete ("X") event and the device's memory in use as a
// counter ("C") event series; process "links" has a thread per directed
// link with each transfer hop as a complete event. Events are sorted by
// process, thread and time, so that timestamps never decrease within a
// thread. o must carry a trace (see study.Retrace).
func ChromeTrace(w io.Writer, o *runresult.Record, c *devices.Cluster) error {
	if err := checkTraced(o); err != nil {
		return fmt.Errorf("chrome trace: %w", err)
	}
	g, res := runGraph(o), o.Result
	if len(res.OpStart) != len(g.Ops) {
		return fmt.Errorf("chrome trace of %s: %d op times for %d ops", o.Placer, len(res.OpStart), len(g.Ops))
	}
	const us = 1e6
	meta := []TraceEvent{
		{Name: "process_name", Ph: "M", PID: tracePIDDevices, Args: map[string]any{"name": "devices"}},
		{Name: "process_sort_index", Ph: "M", PID: tracePIDDevices, Args: map[string]any{"sort_index": 0}},
		{Name: "process_name", Ph: "M", PID: tracePIDLinks, Args: map[string]any{"name": "links"}},
		{Name: "process_sort_index", Ph: "M", PID: tracePIDLinks, Args: map[string]any{"sort_index": 1}},
	}
	for d, dev := range c.Devices {
		meta = append(meta,
			TraceEvent{Name: "thread_name", Ph: "M", PID: tracePIDDevices, TID: d, Args: map[string]any{"name": dev.Name}},
			TraceEvent{Name: "thread_sort_index", Ph: "M", PID: tracePIDDevices, TID: d, Args: map[string]any{"sort_index": d}})
	}
	links := usedLinks(o)
	for _, id := range links {
		meta = append(meta,
			TraceEvent{Name: "thread_name", Ph: "M", PID: tracePIDLinks, TID: id, Args: map[string]any{"name": linkName(c, id)}},
			TraceEvent{Name: "thread_sort_index", Ph: "M", PID: tracePIDLinks, TID: id, Args: map[string]any{"sort_index": id}})
	}

	var evs []TraceEvent
	for _, sp := range opSpans(o) {
		op := &g.Ops[sp.op]
		name := op.Name
		if sp.label != "" {
			name += " [" + sp.label + "]"
		}
		evs = append(evs, TraceEvent{Name: name, Cat: typeName(op) + "," + op.Role.String(), Ph: "X",
			TS: sp.start * us, Dur: dur((sp.end - sp.start) * us), PID: tracePIDDevices, TID: sp.device,
			Args: map[string]any{"type": typeName(op), "role": op.Role.String(), "layer": op.Layer, "flops": op.FLOPs}})
	}
	for _, tr := range res.Trace.Transfers {
		name := fmt.Sprintf("%s → %s", producerName(g, tr.Producer), deviceLabel(c, tr.Dst))
		for h, hop := range tr.Hops {
			evs = append(evs, TraceEvent{Name: name, Cat: "transfer", Ph: "X", TS: hop.Start * us, Dur: dur((hop.End - hop.Start) * us),
				PID: tracePIDLinks, TID: hop.Link,
				Args: map[string]any{"bytes": tr.Bytes, "from": deviceLabel(c, tr.Src), "to": deviceLabel(c, tr.Dst),
					"hop": h, "queued": (hop.Start - hop.Enqueue) * us}})
		}
	}
	for d, samples := range res.Trace.Memory {
		for _, s := range samples {
			evs = append(evs, TraceEvent{Name: "memory " + c.Devices[d].Name, Cat: "memory", Ph: "C", TS: s.Time * us,
				PID: tracePIDDevices, TID: d, Args: map[string]any{"bytes": s.Bytes}})
		}
	}
	sort.SliceStable(evs, func(i, j int) bool {
		a, b := &evs[i], &evs[j]
		if a.PID != b.PID {
			return a.PID < b.PID
		}
		if a.TID != b.TID {
			return a.TID < b.TID
		}
		return a.TS < b.TS
	})

	other, err := json.Marshal(map[string]any{"placer": o.Placer, "workload": o.Workload, "cluster": o.Cluster,
		"stepTimeSeconds": res.StepTime})
	if err != nil {
		return fmt.Errorf("chrome trace of %s: %w", o.Placer, err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "{\"displayTimeUnit\":\"ms\",\"otherData\":%s,\"traceEvents\":[\n", other)
	enc := json.NewEncoder(bw)
	all := append(meta, evs...)
	for i := range all {
		if i > 0 {
			bw.WriteString(",")
		}
		if err := enc.Encode(&all[i]); err != nil {
			return fmt.Errorf("chrome trace of %s: %w", o.Placer, err)
		}
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// producerName names the op whose output a transfer carries; a transfer
// with no producer op (a collective's chunk) is "collective".
func producerName(g *workloads.Graph, op int) string {
	if op < 0 || op >= len(g.Ops) {
		return "collective"
	}
	return g.Ops[op].Name
}

// deviceLabel is device d's name, or "dev<d>" when c has no such device.
func deviceLabel(c *devices.Cluster, d int) string {
	if d < 0 || d >= len(c.Devices) {
		return fmt.Sprintf("dev%d", d)
	}
	return c.Devices[d].Name
}

// dur is a complete event's duration.
func dur(d float64) *float64 { return &d }
