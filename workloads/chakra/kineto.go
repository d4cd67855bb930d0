package chakra

import (
	"encoding/json"
	"fmt"
)

// kinetoTrace is the part of a Kineto (PyTorch profiler) trace the reader
// uses: complete events of host operators and GPU kernels.
type kinetoTrace struct {
	Events []kinetoEvent `json:"traceEvents"`
}

type kinetoEvent struct {
	Ph   string         `json:"ph"`
	Cat  string         `json:"cat"`
	Name string         `json:"name"`
	Dur  float64        `json:"dur"`
	Args map[string]any `json:"args"`
}

// kinetoKernelTimes maps the record-function id of each host operator to
// the microseconds of the GPU kernels it launched: a kernel names its
// launching operator by "External id", the operator its execution-trace
// node by "Record function id" (the node's rf_id), as Chakra's trace
// linker joins them (src/trace_link/trace_linker.py).
func kinetoKernelTimes(data []byte, file string) (map[int64]float64, error) {
	var kt kinetoTrace
	if err := json.Unmarshal(data, &kt); err != nil {
		return nil, fmt.Errorf("%w: Kineto trace %s: %v", ErrFormat, file, err)
	}
	ext := map[int64]int64{} // External id -> rf_id
	for _, e := range kt.Events {
		if e.Ph != "X" || e.Cat != "cpu_op" {
			continue
		}
		x, ok1 := num(e.Args["External id"])
		rf, ok2 := num(e.Args["Record function id"])
		if ok1 && ok2 {
			ext[x] = rf
		}
	}
	out := map[int64]float64{}
	for _, e := range kt.Events {
		if e.Ph != "X" || (e.Cat != "kernel" && e.Cat != "gpu_memcpy" && e.Cat != "gpu_memset") {
			continue
		}
		if !(e.Dur >= 0) || e.Dur > 1e12 {
			return nil, fmt.Errorf("%w: Kineto trace %s: kernel %q has dur = %g µs (valid range: 0..1e12)", ErrFormat, file, e.Name, e.Dur)
		}
		x, ok := num(e.Args["External id"])
		if !ok {
			continue
		}
		if rf, ok := ext[x]; ok {
			out[rf] += e.Dur
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: Kineto trace %s: no GPU kernel is linked to a host operator (kernels need args \"External id\", host operators \"External id\" and \"Record function id\")", ErrFormat, file)
	}
	return out, nil
}

// num reads a JSON number as an int64.
func num(v any) (int64, bool) {
	f, ok := v.(float64)
	if !ok || f != f || f < -1<<53 || f > 1<<53 {
		return 0, false
	}
	return int64(f), true
}
