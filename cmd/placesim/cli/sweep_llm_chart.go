package cli

import (
	"fmt"
	"strings"

	"placesim/devices"
	"placesim/parallel"
	"placesim/reports"
	"placesim/study"
	"placesim/workloads/zoo"
)

// sweepAxis names the swept parameters of sweep --layout on a chart's X
// axis, with their units.
var sweepAxis = map[string]string{
	"system.nvlink-domain":    "NVLink domain size (GPUs)",
	"system.adapter-speed":    "network adapter speed (Gb/s)",
	"system.oversubscription": "leaf oversubscription (x:1)",
	"system.gpus-per-node":    "GPUs per node",
	"system.adapters":         "network adapters per node",
	"system.nvlink-links":     "NVLink links per GPU",
	"system.nodes":            "nodes",
	"system.racks":            "racks",
	"system.gpus":             "GPUs",
	"system.leaf":             "adapters per leaf switch",
	"system.gpu":              "GPU kind",
	"system.fabric":           "fabric",
	"system.nvlink":           "NVLink generation",
	"system.network":          "network",
	"system.scale-up":         "scale-up links",
	"precision":               "precision",
	"gpus":                    "GPUs",
	"layout.tp":               "tensor-parallel size",
	"layout.pp":               "pipeline-parallel size",
	"layout.vp":               "virtual stages per pipeline rank",
	"layout.cp":               "context-parallel size",
	"layout.ep":               "expert-parallel size",
	"layout.dp":               "data-parallel size",
	"layout.mbs":              "micro-batch size (sequences)",
	"layout.gbs":              "global batch size (sequences)",
}

// sweepLabels are the charts' labels: the reports' title and axes, What
// the run ("llama3.1-405b on 1,024 GPUs (tp8 pp8 vp2 dp16 gbs 512)")
// and XName the swept quantity without its unit ("NVLink domain size").
type sweepLabels struct {
	reports.SweepLabels
	What, XName string
}

// llmSweepLabels is the chart's title and axis labels: "llama3.1-405b
// on 1,024 GPUs (tp8 pp8 vp2 dp16, gbs 512): iteration time vs NVLink
// domain size", X "NVLink domain size (GPUs)", Y "iteration time". When
// the GPUs are swept (--vary gpus) the title names neither their number
// nor the global batch, which scale with them.
func llmSweepLabels(opts *SweepOptions, param string, values []string, numeric bool) sweepLabels {
	x, ok := sweepAxis[strings.ToLower(param)]
	if !ok {
		x = param
	}
	name := x
	if i := strings.Index(name, " ("); i > 0 {
		name = name[:i]
	}
	if !numeric {
		x = fmt.Sprintf("%s (%s)", x, strings.Join(values, ", "))
	}
	what := strings.TrimPrefix(opts.Workload, "zoo:")
	if m, err := zoo.ParseLLM(opts.Workload); err == nil && m.Name != "" {
		what = m.Name
	}
	if l, err := parallel.Parse(opts.Layout); err == nil {
		var parts []string
		for _, d := range []struct {
			k string
			v int
		}{{"tp", l.TP}, {"pp", l.PP}, {"vp", l.VP}, {"cp", l.CP}, {"ep", l.EP}, {"dp", l.DP}} {
			if d.v > 1 {
				parts = append(parts, fmt.Sprintf("%s%d", d.k, d.v))
			}
		}
		if param == "gpus" {
			what = fmt.Sprintf("%s (%s at the first point)", what, strings.Join(parts, " "))
		} else {
			parts = append(parts, fmt.Sprintf("gbs %d", l.GlobalBatch))
			what = fmt.Sprintf("%s on %s GPUs (%s)", what, thousands(l.GPUs()), strings.Join(parts, " "))
		}
	}
	return sweepLabels{SweepLabels: reports.SweepLabels{Title: fmt.Sprintf("%s: iteration time vs %s", what, name), X: x, Y: "iteration time"}, What: what, XName: name}
}

// systemLegend names a cluster of -c for a chart's legend: a one-line
// system as its family and size ("GB200 NVL72, 15 racks (1,024 GPUs)",
// "DGX B200, 128 nodes (1,024 GPUs)"), anything else as given.
func systemLegend(spec string) string {
	if !devices.IsSystemSpec(spec) {
		return spec
	}
	sp, err := devices.ParseSystem(spec)
	if err != nil {
		return spec
	}
	fam, unit := sp.Base, "nodes"
	for _, f := range devices.SystemFamilies() {
		if f.Name == sp.Base {
			d, _, _ := strings.Cut(f.Description, ":")
			d = strings.TrimSuffix(strings.TrimSuffix(d, " nodes"), " racks")
			if f.Name != "system" && d != "" {
				fam = d
			}
			if f.Unit != "" {
				unit = f.Unit
			}
		}
	}
	if !systemSized(spec) {
		// llm.System sizes an unsized spec to each point's layout: a
		// GPU-count sweep's points run on different sizes
		return fmt.Sprintf("%s, %s sized to the layout", fam, unit)
	}
	n := sp.Nodes
	if unit == "racks" && sp.Domain > 0 {
		n = (sp.Nodes*sp.GPUsPerNode + sp.Domain - 1) / sp.Domain
	}
	if n == 1 {
		unit = strings.TrimSuffix(unit, "s")
	}
	return fmt.Sprintf("%s, %d %s (%s GPUs)", fam, n, unit, thousands(sp.TotalGPUs()))
}

// systemSized reports whether a one-line system spec gives its size
// (nodes=, racks= or gpus=), as llm.System reads it.
func systemSized(spec string) bool {
	_, rest, ok := strings.Cut(spec, ":")
	if !ok {
		return false
	}
	for _, kv := range strings.Split(rest, ",") {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "nodes", "racks", "gpus":
			return true
		}
	}
	return false
}

// thousands writes n with commas: 1,024.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// llmSweepStamp is the stamp of the sweep's chart: placesim's version,
// the command (the workload and --vary; the title names the layout and
// the legend the systems, and the full command would not fit the
// chart's width) and the date.
func llmSweepStamp(opts *SweepOptions) *study.Stamp {
	return study.NewStamp(fmt.Sprintf("sweep -w %s --vary %s", opts.Workload, opts.Vary))
}
