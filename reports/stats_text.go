package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"placesim/internal/units"
	"placesim/runresult"
	"placesim/workloads"
	"placesim/workloads/chakra"
	"placesim/workloads/zoo"
)

// errWriter keeps the first error of a run of writes, so that a text
// renderer of many Fprintf lines returns it once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// WriteStats writes a workload's statistics as placesim stats prints them:
// size, work, memory, the execution trace's content (for a trace) and the
// CCR of Celeritas eq. 1 (or "-" without a cluster).
func WriteStats(w io.Writer, o *runresult.WorkloadStats) error {
	ew := &errWriter{w: w}
	writeStats(ew, o)
	return ew.err
}

func writeStats(w io.Writer, o *runresult.WorkloadStats) {
	s := &o.Stats
	fmt.Fprintf(w, "workload           %s (batch %d, training %v)\n", o.Workload, o.Batch, o.Training)
	if m := o.LengthMix; m != nil {
		if m.MaxTokens > 0 {
			fmt.Fprintf(w, "lengths            %s, max-tokens %d: expectation over fairseq's batches of %d lengths%s, one GPU (mean sentence %.1f tokens; a batch, expectations over the batches: %.1f sentences of %.1f tokens, %.0f tokens, %.0f of them counted: the targets')\n", m.Lengths, m.MaxTokens, m.Parts, ratioNote(m.Ratio), m.MeanLength, m.MeanBatch, m.MeanPadded, m.MeanBatchTokens, m.MeanCountedTokens)
		} else {
			fmt.Fprintf(w, "lengths            %s, bin %d: expectation over %d padded lengths (mean sample %.1f tokens, mean padded %.1f)\n", m.Lengths, m.Bin, m.Parts, m.MeanLength, m.MeanPadded)
		}
	}
	fmt.Fprintf(w, "ops                %d (forward %d, backward %d, update %d)\n", s.Ops, s.Forward, s.Backward, s.Update)
	fw, prec := s.Framework, s.Precision
	if fw == "" {
		fw = "as in the file"
	}
	if prec == "" {
		prec = "fp32"
	}
	fmt.Fprintf(w, "kernels            %d per step (framework %s, precision %s)\n", s.Kernels, fw, prec)
	fmt.Fprintf(w, "edges              %d (%s)\n", s.Edges, units.Bytes(s.EdgeBytes))
	fmt.Fprintf(w, "layers             %d\n", s.Layers)
	fmt.Fprintf(w, "colocation groups  %d\n", s.ColocationGroups)
	fmt.Fprintf(w, "FLOPs              %.4g\n", s.FLOPs)
	writeLayerFLOPs(w, s.LayerFLOPs)
	fmt.Fprintf(w, "parameters         %s (trainable %s)\n", units.Bytes(s.ParamBytes), units.Bytes(s.TrainableBytes))
	fmt.Fprintf(w, "resident           %s (parameters, gradient buffers, optimizer state)\n", units.Bytes(s.ResidentBytes))
	fmt.Fprintf(w, "activations        %s (forward outputs; kept for backward %s)\n", units.Bytes(s.ActivationBytes), units.Bytes(s.SavedBytes))
	if o.Trace != nil {
		writeTrace(w, o.Trace)
	}
	switch c := o.CCR; {
	case c != nil:
		fmt.Fprintf(w, "CCR                %.4g (Celeritas eq. 1 on %s: transfers %s -> %s, compute on %s)\n", c.Value, c.Cluster, c.From, c.To, c.Compute)
	case o.NoCCR != "":
		fmt.Fprintf(w, "CCR                - (%s)\n", o.NoCCR)
	default:
		fmt.Fprintf(w, "CCR                - (give --cluster)\n")
	}
	if o.OpCosts != nil {
		writeOpCosts(w, o.OpCosts)
	}
}

// writeOpCosts writes stats --ops: the ops priced on one device, by role
// and kernel class, then the longest.
func writeOpCosts(w io.Writer, c *runresult.OpCosts) {
	fmt.Fprintf(w, "op costs           on %s (%s) of %s: %d ops, %d kernels, %s one after another (no overlap, no communication)\n", c.Device, c.Kind, c.Cluster, c.Ops, c.Kernels, units.Seconds(c.Seconds))
	share := func(t float64) float64 {
		if c.Seconds > 0 {
			return 100 * t / c.Seconds
		}
		return 0
	}
	fmt.Fprintf(w, "  %-9s %-14s %8s %12s %7s %12s %12s\n", "role", "class", "kernels", "time", "share", "TFLOP/s", "GB/s")
	for _, k := range c.ByClass {
		fmt.Fprintf(w, "  %-9s %-14s %8d %12s %6.1f%% %12s %12s\n", k.Role, k.Class, k.Kernels, units.Seconds(k.Seconds), share(k.Seconds), perSecond(k.FLOPs/1e12, k.Seconds), perSecond(float64(k.Bytes)/1e9, k.Seconds))
	}
	if len(c.Top) == 0 {
		return
	}
	fmt.Fprintf(w, "longest %d ops:\n", len(c.Top))
	fmt.Fprintf(w, "  %-52s %-18s %-14s %12s %10s %10s %-8s\n", "op", "type", "class", "time", "TFLOP/s", "GB/s", "bound")
	for _, op := range c.Top {
		bound := op.Bound
		if op.Device != "" {
			bound += " on " + op.Device
		}
		fmt.Fprintf(w, "  %-52s %-18s %-14s %12s %10s %10s %-8s\n", op.Name, op.Type, op.Class, units.Seconds(op.Seconds), perSecond(op.FLOPs/1e12, op.Seconds), perSecond(float64(op.Bytes)/1e9, op.Seconds), bound)
	}
}

// perSecond is an amount over a time, "-" for no time.
func perSecond(v, t float64) string {
	if !(t > 0) {
		return "-"
	}
	return fmt.Sprintf("%.2f", v/t)
}

// maxLayerGroups is how many layer groups stats prints by name; the
// smaller rest are summed on one line.
const maxLayerGroups = 12

// writeLayerFLOPs writes the forward FLOPs by layer group (all of them
// when there are at most maxLayerGroups, else the largest and the rest
// summed).
func writeLayerFLOPs(w io.Writer, groups []workloads.GroupFLOPs) {
	if len(groups) == 0 {
		return
	}
	shown := groups
	var rest workloads.GroupFLOPs
	if len(groups) > maxLayerGroups {
		big := append([]workloads.GroupFLOPs(nil), groups...)
		sort.SliceStable(big, func(i, j int) bool { return big[i].FLOPs > big[j].FLOPs })
		keep := map[string]bool{}
		for _, g := range big[:maxLayerGroups-1] {
			keep[g.Group] = true
		}
		shown = nil
		for _, g := range groups {
			if keep[g.Group] {
				shown = append(shown, g)
			} else {
				rest.Ops += g.Ops
				rest.FLOPs += g.FLOPs
				rest.Group = fmt.Sprintf("(%d more groups)", len(groups)-maxLayerGroups+1)
			}
		}
	}
	fmt.Fprintf(w, "forward FLOPs by layer group:\n")
	for _, g := range append(shown, rest) {
		if g.Group == "" {
			continue
		}
		fmt.Fprintf(w, "  %-16s %10.4g  (%d ops)\n", g.Group, g.FLOPs, g.Ops)
	}
}

// writeTrace writes what an execution trace holds (stats of a Chakra or
// PyTorch execution trace).
func writeTrace(w io.Writer, t *chakra.Summary) {
	ver := t.Version
	if ver == "" {
		ver = "unset"
	}
	fmt.Fprintf(w, "trace              %s, %d file(s), ranks %v, schema version %s, host schema %s\n", t.Format, len(t.Files), t.Ranks, ver, orDash(t.Schema))
	fmt.Fprintf(w, "trace nodes        %d (%d compute, %d collective, %d send, %d recv, %d memory, %d metadata; %d host operators)\n",
		t.Nodes, t.Compute, t.Collective, t.Send, t.Recv, t.Memory, t.Metadata, t.HostOps)
	fmt.Fprintf(w, "compute durations  %s total (%d µs; kernels %s, host operators %s)\n", units.Seconds(t.ComputeSeconds), int64(t.ComputeSeconds*1e6+0.5), units.Seconds(t.KernelSeconds), units.Seconds(t.ComputeSeconds-t.KernelSeconds))
	if t.Collective > 0 {
		var kinds []string
		for k, n := range t.Collectives {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(kinds)
		fmt.Fprintf(w, "collectives        %s (measured %s; %d played between ranks of the set, %d on this rank alone: measured time, else cost model)\n", strings.Join(kinds, ", "), units.Seconds(t.CollectiveSeconds), t.CollectivesSimulated, t.CollectivesMeasured)
	}
	for _, g := range t.Groups {
		ranks := "all ranks"
		if g.Ranks != nil {
			ranks = fmt.Sprint(g.Ranks)
		}
		fmt.Fprintf(w, "process group      %q: %d ranks (%s), backend %s\n", g.Name, g.Size, ranks, orDash(g.Backend))
	}
	fmt.Fprintf(w, "measured times     on %s; host operators: %s; %d played nodes without a duration use the cost model\n", t.Device, t.CPU, t.NoDuration)
	fmt.Fprintf(w, "longest chain      %s of measured durations (a lower bound of the simulated step)\n", units.Seconds(t.LongestChain))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ratioNote qualifies a token mix's parts by its ratio model.
func ratioNote(ratio string) string {
	if ratio == zoo.RatioGaleChurch {
		return " (source, target; ratio=" + zoo.RatioGaleChurch + ")"
	}
	return ""
}
