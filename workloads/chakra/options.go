package chakra

import (
	"fmt"
	"strconv"

	"placesim/workloads"
)

// CPU policies: what a host-side operator (is_cpu_op) becomes.
const (
	// CPUDrop plays host operators as zero-time ops on their rank's
	// device: they keep the order they impose on the kernels, not their
	// host time (the default: a step on accelerators).
	CPUDrop = "drop"
	// CPUHost plays them on a CPU device of the cluster (CPU-only ops with
	// their measured host time), as ASTRA-sim plays is_cpu_op nodes on a
	// host resource beside the accelerator.
	CPUHost = "host"
	// CPUDevice plays them with their host time on the rank's device,
	// serialised with its kernels.
	CPUDevice = "device"
)

// Options are a trace file spec's options (trace.et?device=H100-80GB).
type Options struct {
	// Device is the device kind the measured durations were taken on:
	// they become measured times under that kind's name; "" puts them
	// under any accelerator (workloads.MeasuredAccelerator). The caller
	// checks the name against the device kinds.
	Device string
	// Strict makes an unknown node type, attribute, field or schema
	// version an error rather than a warning.
	Strict bool
	// CPU is the policy for host operators (CPUDrop, CPUHost, CPUDevice).
	CPU string
	// CtrlOrder makes ctrl_deps dependencies too (ctrl=order), for traces
	// whose generator means them as an order; by default (ctrl=parent)
	// they are the calling operator, as Chakra's PyTorch converter writes
	// them and its feeder ignores them.
	CtrlOrder bool
	// Kineto is the path of a Kineto trace (JSON) to take the kernel
	// times of a PyTorch execution trace from.
	Kineto string
	// Batch is the samples per step, for throughput (default 1: the trace
	// does not say).
	Batch int
}

// optionNames lists the options, for errors.
const optionNames = "batch, cpu, ctrl, device, kineto, strict"

// ParseOptions reads the options of a trace spec's query (the part after
// '?'): device=KIND, strict=true|false, cpu=drop|host|device,
// ctrl=parent|order, kineto=PATH, batch=N.
func ParseOptions(query string) (Options, error) {
	o := Options{CPU: CPUDrop, Batch: 1}
	params, err := workloads.ParseQuery("trace", query)
	if err != nil {
		return o, err
	}
	for _, kv := range params {
		k, v := kv.Key, kv.Value
		switch k {
		case "device":
			if v == "" {
				return o, fmt.Errorf("trace option device is empty (valid: a device kind name, see placesim list devices)")
			}
			o.Device = v
		case "strict":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return o, fmt.Errorf("trace option strict=%q (valid: true, false)", v)
			}
			o.Strict = b
		case "cpu":
			switch v {
			case CPUDrop, CPUHost, CPUDevice:
				o.CPU = v
			default:
				return o, fmt.Errorf("trace option cpu=%q (valid: %s, %s, %s)", v, CPUDrop, CPUHost, CPUDevice)
			}
		case "ctrl":
			switch v {
			case "parent":
				o.CtrlOrder = false
			case "order":
				o.CtrlOrder = true
			default:
				return o, fmt.Errorf("trace option ctrl=%q (valid: parent, order)", v)
			}
		case "kineto":
			if v == "" {
				return o, fmt.Errorf("trace option kineto is empty (valid: the path of a Kineto trace JSON)")
			}
			o.Kineto = v
		case "batch":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1<<30 {
				return o, fmt.Errorf("trace option batch=%q (valid range: 1..%d)", v, 1<<30)
			}
			o.Batch = n
		default:
			return o, fmt.Errorf("unknown trace option %q (valid: %s)", k, optionNames)
		}
	}
	return o, nil
}
