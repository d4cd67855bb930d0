package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"placesim/devices"
	"placesim/engine/llm"
	"placesim/reports"
	"placesim/study"
)

// LLMSweepRow is one point of a large-model sweep (sweep --layout).
type LLMSweepRow struct {
	Cluster            string             `json:"cluster"`
	System             string             `json:"system"`
	Param              string             `json:"param"`
	Value              string             `json:"value"`
	Layout             string             `json:"layout"`
	StepTime           float64            `json:"stepTime"`
	TokensPerSecPerGPU float64            `json:"tokensPerSecPerGPU"`
	MFU                float64            `json:"mfu"`
	ExposedComm        map[string]float64 `json:"exposedComm"`
	OOM                string             `json:"oom,omitempty"`
	Error              string             `json:"error,omitempty"`
}

// sweepLLMRun is sweep --layout: one iteration of a large model (as
// train plays it) at each value of --vary, on each cluster of -c
// (several separated by ';'). Parameters: system.KEY (a setting of a
// one-line system: nvlink-domain, adapter-speed, oversubscription, gpu,
// fabric, ...), precision (bf16, fp16, fp8), or layout.KEY (tp, pp, dp,
// mbs, ...). It writes results.json, table.txt and the chart of
// iteration time against the setting, a line per cluster.
func sweepLLMRun(opts *SweepOptions) error {
	param, rng, ok := strings.Cut(opts.Vary, "=")
	if !ok {
		return fmt.Errorf("--vary %q: want PARAM=RANGE, e.g. system.nvlink-domain=8,16,32,72", opts.Vary)
	}
	values, err := study.ExpandRange(rng)
	if err != nil {
		return fmt.Errorf("--vary: %w", err)
	}
	key, isSystem := strings.CutPrefix(param, "system.")
	lkey, isLayout := strings.CutPrefix(param, "layout.")
	switch {
	case isSystem:
		if err := study.CheckSetting(study.Setting{Param: param, Value: values[0]}); err != nil {
			return fmt.Errorf("--vary: %w", err)
		}
	case param == "precision":
		lkey, isLayout = "precision", true
	case isLayout && lkey != "":
	default:
		return fmt.Errorf("--vary %q: with --layout the parameter is system.KEY (%s), precision or layout.KEY (tp, pp, vp, cp, ep, dp, mbs, gbs, ...)", param, strings.Join(devices.SystemKeys(), ", "))
	}
	var clusters []string
	for _, c := range strings.Split(opts.Cluster, ";") {
		if c = strings.TrimSpace(c); c != "" {
			clusters = append(clusters, c)
		}
	}
	if len(clusters) == 0 {
		return fmt.Errorf("--cluster: empty")
	}
	var rows []LLMSweepRow
	failed := 0
	for _, cs := range clusters {
		for _, v := range values {
			row := LLMSweepRow{Cluster: cs, System: cs, Param: param, Value: v, Layout: opts.Layout}
			var err error
			if isSystem {
				row.System, err = devices.SetSystemSetting(cs, key, v)
			} else {
				row.Layout = setLayoutKey(opts.Layout, lkey, v)
			}
			var r *llm.Result
			if err == nil {
				var j *llm.Job
				if j, err = llmJob(opts.Workload, row.System, row.Layout); err == nil {
					row.System = j.Cluster.Name
					r, err = llm.Simulate(j)
				}
			}
			switch {
			case err != nil:
				row.Error = err.Error()
				failed++
			case r.OOM != nil:
				row.OOM = r.OOM.Err.Error()
			default:
				row.StepTime, row.TokensPerSecPerGPU, row.MFU, row.ExposedComm = r.IterationTime, r.TokensPerSecPerGPU, r.MFU, r.ExposedByKind()
			}
			rows = append(rows, row)
		}
	}
	if err := writeLLMSweep(opts, param, clusters, values, rows); err != nil {
		return err
	}
	if failed > 0 && !opts.AllowFailures {
		for _, r := range rows {
			if r.Error != "" {
				return fmt.Errorf("sweep: %d of %d points failed; first: %s=%s on %s: %s", failed, len(rows), param, r.Value, r.Cluster, r.Error)
			}
		}
	}
	return nil
}

// setLayoutKey sets key=v in a comma-separated layout, replacing the
// key's setting if there is one.
func setLayoutKey(layout, key, v string) string {
	var kept []string
	for _, kv := range strings.Split(layout, ",") {
		k, _, _ := strings.Cut(kv, "=")
		if kv == "" || strings.EqualFold(strings.TrimSpace(k), key) {
			continue
		}
		kept = append(kept, kv)
	}
	return strings.Join(append(kept, key+"="+v), ",")
}

func writeLLMSweep(opts *SweepOptions, param string, clusters, values []string, rows []LLMSweepRow) error {
	var tab strings.Builder
	tw := tabwriter.NewWriter(&tab, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "cluster \\ %s", param)
	for _, v := range values {
		fmt.Fprintf(tw, "\t%s", v)
	}
	fmt.Fprintln(tw, "\t")
	i := 0
	for _, c := range clusters {
		fmt.Fprint(tw, c)
		for range values {
			r := rows[i]
			i++
			switch {
			case r.Error != "":
				fmt.Fprint(tw, "\terror")
			case r.OOM != "":
				fmt.Fprint(tw, "\tOOM")
			default:
				fmt.Fprintf(tw, "\t%.3f s (%.0f tok/s/GPU)", r.StepTime, r.TokensPerSecPerGPU)
			}
		}
		fmt.Fprintln(tw, "\t")
	}
	tw.Flush()
	fmt.Fprint(opts.Out, tab.String())
	if opts.OutDir == "" {
		return nil
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	js, err := json.MarshalIndent(map[string]any{"workload": opts.Workload, "layout": opts.Layout, "vary": opts.Vary, "rows": rows}, "", "  ")
	if err != nil {
		return err
	}
	if err := reports.WriteFileAtomic(filepath.Join(opts.OutDir, "results.json"), append(js, '\n')); err != nil {
		return err
	}
	if err := reports.WriteFileAtomic(filepath.Join(opts.OutDir, "table.txt"), []byte(tab.String())); err != nil {
		return err
	}
	// the chart: iteration time against the setting, a line per cluster
	series := make([]reports.SweepSeries, len(clusters))
	allNum := true
	xs := make([]float64, len(values))
	for k, v := range values {
		x, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(v, ":1"), "Gb/s"), 64)
		if err != nil || math.IsInf(x, 0) {
			allNum = false
		}
		xs[k] = x
	}
	for k := range xs {
		if !allNum {
			xs[k] = float64(k + 1) // categorical: the value's position
		}
	}
	for ci, c := range clusters {
		series[ci].Placer = c
		for k := range values {
			r := rows[ci*len(values)+k]
			pt := reports.SweepPoint{X: xs[k], StepTime: r.StepTime}
			if r.Error != "" {
				pt.Failed = "error"
			} else if r.OOM != "" {
				pt.Failed = "OOM"
			}
			series[ci].Points = append(series[ci].Points, pt)
		}
	}
	label := param
	if !allNum {
		label = fmt.Sprintf("%s (%s)", param, strings.Join(values, ", "))
	}
	fig := reports.SweepChart(label, series, false)
	fig.Title = fmt.Sprintf("%s, %s: iteration time vs %s", opts.Workload, opts.Layout, param)
	if _, err := reports.WriteFigures(opts.OutDir, []*reports.Figure{fig}); err != nil {
		return err
	}
	fmt.Fprintf(opts.Out, "wrote %s (%d points), %s.png/.svg\n", filepath.Join(opts.OutDir, "results.json"), len(rows), filepath.Join(opts.OutDir, fig.Name))
	return nil
}
