package study

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"placesim/devices"
	"placesim/internal/checked"
	"placesim/runresult"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// StatsRequest is placesim stats: a workload, and a cluster for the CCR
// ("" with a workload that describes no machine: no CCR).
type StatsRequest struct {
	Inputs
	// Lenient imports an ONNX model's unsupported nodes as zero-cost
	// placeholders (the lenient=true import option) and returns a warning
	// per unsupported op type.
	Lenient bool
	// Ops > 0 prices every op on the cluster's first accelerator and
	// returns the Ops longest (WorkloadStats.OpCosts); it needs a cluster
	// and one graph (not a mix of lengths). On a one-device cluster the
	// CCR is then left out, with the reason, instead of failing.
	Ops int
}

// WorkloadStats is what Stats returns (runresult.WorkloadStats: the one
// definition, which reports renders).
type WorkloadStats = runresult.WorkloadStats

// CCR is Celeritas' eq. 1 on a cluster (runresult.CCR).
type CCR = runresult.CCR

// Stats loads the workload and computes its statistics and, when a cluster
// is given or the workload describes one, its CCR.
func Stats(req StatsRequest) (*WorkloadStats, error) {
	spec := req.Workload
	if req.Lenient {
		if strings.HasPrefix(spec, "zoo:") {
			return nil, fmt.Errorf("workload %q: lenient import applies to ONNX models, not zoo models", spec)
		}
		switch _, err := os.Stat(spec); {
		case err == nil || !strings.Contains(spec, "?"):
			spec += "?lenient=true"
		default:
			spec += "&lenient=true"
		}
	}
	if req.Ops < 0 {
		return nil, &FieldError{Field: "ops", Msg: fmt.Sprintf("%d longest ops asked", req.Ops), Valid: ">= 0 (0 lists none)"}
	}
	if mix, err := zoo.LengthMixOf(spec); err != nil {
		return nil, err
	} else if mix != nil {
		if req.Ops > 0 {
			return nil, &FieldError{Field: "ops", Msg: fmt.Sprintf("workload %q is a mix of %d padded lengths, not one graph, so its ops have no one price", req.Workload, len(mix.Parts)), Valid: "with a workload of one length (seq=, and predictions= for zoo:bert)"}
		}
		return lengthMixStats(req, mix)
	}
	g, trace, isTrace, err := LoadTrace(spec)
	if !isTrace {
		g, err = LoadWorkload(spec)
	}
	if err != nil {
		return nil, err
	}
	o := &WorkloadStats{Workload: g.Name, Batch: g.Batch, Training: g.Training, Stats: workloads.ComputeStats(g), Warnings: g.Warnings, Trace: trace}
	if req.Cluster != "" || g.Hint != nil || req.Ops > 0 {
		c, err := ResolveCluster(req.Cluster, g)
		if err != nil {
			return nil, err
		}
		if req.Ops > 0 && len(c.Devices) < 2 {
			o.NoCCR = fmt.Sprintf("cluster %s has one device, nothing to send between", c.Name)
		} else {
			if o.CCR, err = ClusterCCR(g, c); err != nil {
				return nil, err
			}
			if !checked.Finite(o.CCR.Value) {
				return nil, fmt.Errorf("CCR of %q on cluster %q is %g: a transfer or compute time is not finite (check the cluster's bandwidths and rates)", g.Name, c.Name, o.CCR.Value)
			}
		}
		if req.Ops > 0 {
			if o.OpCosts, err = PriceOps(g, c, req.Ops); err != nil {
				return nil, err
			}
		}
	}
	if !checked.Finite(o.FLOPs) {
		return nil, fmt.Errorf("workload %q: total FLOPs %g is not finite", g.Name, o.FLOPs)
	}
	return o, nil
}

// ClusterCCR computes eq. 1 of Celeritas on c: the sum over edges of the
// time to send the edge's bytes between the cluster's first two
// accelerators, over the sum of the ops' compute times on the first (an op
// it cannot run: the first device that can).
func ClusterCCR(g *workloads.Graph, c *devices.Cluster) (*CCR, error) {
	devs := c.Accelerators()
	if len(devs) < 2 {
		devs = devs[:0]
		for i := range c.Devices {
			devs = append(devs, i)
		}
	}
	if len(devs) < 2 {
		return nil, fmt.Errorf("CCR of %q on cluster %q: it needs two devices to send data between, the cluster has %d", g.Name, c.Name, len(c.Devices))
	}
	src, dst := devs[0], devs[1]
	w := make([]float64, len(g.Ops))
	for i := range g.Ops {
		t, _, err := opTimeOn(c, &g.Ops[i], src)
		if err != nil {
			return nil, fmt.Errorf("CCR of %q on cluster %q: %w", g.Name, c.Name, err)
		}
		w[i] = t
	}
	v := workloads.CCR(g, func(op int) float64 { return w[op] },
		func(b int64) float64 { return c.TransferTime(src, dst, b) })
	return &CCR{Value: v, Cluster: c.Name, From: c.Devices[src].Name, To: c.Devices[dst].Name, Compute: c.Devices[src].Name}, nil
}

// PriceOps prices every op of g on c's first accelerator (its first
// device when it has none) with the cost model the engine charges
// (devices.OpTime), and returns the time by role and kernel class and the
// top longest ops. An op the device cannot run (a CPU-only op) is priced
// on the first device that can, and says so.
func PriceOps(g *workloads.Graph, c *devices.Cluster, top int) (*runresult.OpCosts, error) {
	if len(c.Devices) == 0 {
		return nil, fmt.Errorf("pricing the ops of %q: cluster %q has no device", g.Name, c.Name)
	}
	dev := 0
	if acc := c.Accelerators(); len(acc) > 0 {
		dev = acc[0]
	}
	kind := &c.Devices[dev].Kind
	o := &runresult.OpCosts{Cluster: c.Name, Device: c.Devices[dev].Name, Kind: kind.Name, Ops: len(g.Ops)}
	type key struct{ role, class string }
	by := map[key]*runresult.ClassCost{}
	all := make([]runresult.OpCost, 0, len(g.Ops))
	for i := range g.Ops {
		op := &g.Ops[i]
		t, d, err := opTimeOn(c, op, dev)
		if err != nil {
			return nil, fmt.Errorf("pricing op %q of %q on cluster %q: %w", op.Name, g.Name, c.Name, err)
		}
		if !checked.Finite(t) || t < 0 {
			return nil, fmt.Errorf("pricing op %q of %q on cluster %q: time %g s (valid: finite, >= 0; check the op's FLOPs and bytes and the device's rates)", op.Name, g.Name, c.Name, t)
		}
		class := workloads.KernelClassOf(op)
		k := &c.Devices[d].Kind
		bound := "compute"
		if _, ok := devices.MeasuredTime(op, k); ok {
			bound = "measured"
		} else if class == workloads.KernelNone {
			bound = "none" // no kernel runs (a view, a source)
		} else if devices.MemoryBound(op, k) {
			bound = "memory"
		}
		oc := runresult.OpCost{Name: op.Name, Type: op.Type, Role: op.Role.String(), Class: class.String(), FLOPs: op.FLOPs, Bytes: op.BytesAccessed, Seconds: t, Bound: bound}
		if d != dev {
			oc.Device = c.Devices[d].Name
		}
		all = append(all, oc)
		o.Seconds += t
		if class == workloads.KernelNone {
			continue
		}
		o.Kernels++
		kc := key{oc.Role, oc.Class}
		cc := by[kc]
		if cc == nil {
			cc = &runresult.ClassCost{Role: kc.role, Class: kc.class}
			by[kc] = cc
		}
		cc.Kernels++
		cc.Seconds += t
		cc.FLOPs += op.FLOPs
		cc.Bytes += op.BytesAccessed
	}
	for _, cc := range by {
		o.ByClass = append(o.ByClass, *cc)
	}
	sort.Slice(o.ByClass, func(i, j int) bool {
		a, b := o.ByClass[i], o.ByClass[j]
		if a.Seconds != b.Seconds {
			return a.Seconds > b.Seconds
		}
		return a.Role+a.Class < b.Role+b.Class
	})
	sort.SliceStable(all, func(i, j int) bool { return all[i].Seconds > all[j].Seconds })
	o.Top = all[:min(top, len(all))]
	return o, nil
}

// opTimeOn is op's time on device dev of c and dev, or, when dev cannot
// run it (a CPU-only op on an accelerator), its time on the first device
// that can and that device; dev's error when none can. ClusterCCR and
// PriceOps price an op this way.
func opTimeOn(c *devices.Cluster, op *workloads.Op, dev int) (float64, int, error) {
	t, err := c.OpTime(op, dev)
	if err == nil {
		return t, dev, nil
	}
	for d := range c.Devices {
		if td, e := c.OpTime(op, d); e == nil {
			return td, d, nil
		}
	}
	return 0, dev, err
}
