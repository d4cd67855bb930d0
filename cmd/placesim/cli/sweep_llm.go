package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"placesim/devices"
	"placesim/engine/llm"
	"placesim/parallel"
	"placesim/reports"
	"placesim/study"
)

// LLMSweepRow is one point of a large-model sweep (sweep --layout).
type LLMSweepRow struct {
	Cluster            string  `json:"cluster"`
	System             string  `json:"system"`
	Param              string  `json:"param"`
	Value              string  `json:"value"`
	Layout             string  `json:"layout"`
	StepTime           float64 `json:"stepTime"`
	TokensPerSecPerGPU float64 `json:"tokensPerSecPerGPU"`
	MFU                float64 `json:"mfu"`
	// GPUs and GlobalBatch are the point's (a gpus sweep changes them).
	GPUs        int                `json:"gpus,omitempty"`
	GlobalBatch int                `json:"globalBatch,omitempty"`
	ExposedComm map[string]float64 `json:"exposedComm"`
	OOM         string             `json:"oom,omitempty"`
	Error       string             `json:"error,omitempty"`
}

// sweepLLMRun is sweep --layout: one iteration of a large model (as
// train plays it) at each value of --vary, on each cluster of -c
// (several separated by ';'). Parameters: system.KEY (a setting of a
// one-line system: nvlink-domain, adapter-speed, oversubscription, gpu,
// fabric, ...), precision (bf16, fp16, fp8), or layout.KEY (tp, pp, dp,
// mbs, ...), or gpus (weak or strong scaling, --scaling: the layout's
// data-parallel size takes the GPUs left by tp*pp*cp, and under weak
// scaling the global batch grows with it). It writes results.json,
// table.txt, the chart of iteration time against the setting, a line per
// cluster, and the scaling chart (tokens/s/GPU and MFU against it).
func sweepLLMRun(opts *SweepOptions, format string) error {
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
	case param == "gpus":
	case isLayout && lkey != "":
	default:
		return fmt.Errorf("--vary %q: with --layout the parameter is system.KEY (%s), precision, gpus or layout.KEY (tp, pp, vp, cp, ep, dp, mbs, gbs, ...)", param, strings.Join(devices.SystemKeys(), ", "))
	}
	isGPUs := param == "gpus"
	var base parallel.Layout
	if isGPUs {
		if opts.Scaling != "weak" && opts.Scaling != "strong" {
			return fmt.Errorf("--scaling %q (valid: weak, strong)", opts.Scaling)
		}
		if base, err = parallel.Parse(opts.Layout); err != nil {
			return fmt.Errorf("--layout: %w", err)
		}
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
			switch {
			case isSystem:
				row.System, err = devices.SetSystemSetting(cs, key, v)
			case isGPUs:
				row.Layout, row.GPUs, row.GlobalBatch, err = scaledLayout(opts.Layout, base, v, opts.Scaling == "weak")
			default:
				row.Layout = setLayoutKey(opts.Layout, lkey, v)
			}
			var r *llm.Result
			if err == nil {
				var j *llm.Job
				if j, err = layoutJob(opts.Workload, row.System, row.Layout, layoutFlagNames("--placers")); err == nil {
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
			if err == nil && r != nil {
				row.GPUs, row.GlobalBatch = r.GPUs, j0GBS(row.Layout)
			}
			rows = append(rows, row)
		}
	}
	if err := writeLLMSweep(opts, format, param, clusters, values, rows); err != nil {
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

// scaledLayout is the layout of a point of a GPU-count sweep: dp takes
// the GPUs left by tp*pp*cp; under weak scaling the global batch grows
// in proportion to dp (the same micro-batches per pipeline), under
// strong scaling it stays. The error names the value and why it does
// not divide.
func scaledLayout(layout string, base parallel.Layout, v string, weak bool) (string, int, int, error) {
	n, err := strconv.Atoi(v)
	group := base.TP * base.PP * base.CP
	if err != nil || n < group || n%group != 0 {
		return "", 0, 0, fmt.Errorf("--vary gpus=%s: %q GPUs (valid: a multiple of tp*pp*cp = %d)", v, v, group)
	}
	dp := n / group
	gbs := base.GlobalBatch
	if weak {
		if (base.GlobalBatch*dp)%base.DP != 0 {
			return "", 0, 0, fmt.Errorf("--vary gpus=%s: weak scaling from dp = %d to %d makes a global batch of %d*%d/%d, not whole", v, base.DP, dp, base.GlobalBatch, dp, base.DP)
		}
		gbs = base.GlobalBatch * dp / base.DP
	}
	var kept []string
	for _, kv := range strings.Split(layout, ",") {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "", "dp", "gbs", "global_batch", "globalbatch": // Parse's names of dp and gbs
			continue
		}
		kept = append(kept, kv)
	}
	return strings.Join(append(kept, "dp="+strconv.Itoa(dp), "gbs="+strconv.Itoa(gbs)), ","), n, gbs, nil
}

// j0GBS is the global batch of a layout string (0 when it does not
// parse).
func j0GBS(layout string) int {
	l, err := parallel.Parse(layout)
	if err != nil {
		return 0
	}
	return l.GlobalBatch
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

func writeLLMSweep(opts *SweepOptions, format, param string, clusters, values []string, rows []LLMSweepRow) error {
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
	writeScalingTable(&tab, param, clusters, values, rows)
	js, err := json.MarshalIndent(map[string]any{"workload": opts.Workload, "layout": opts.Layout, "vary": opts.Vary, "rows": rows}, "", "  ")
	if err != nil {
		return err
	}
	// stdout: the table, results.json's content or a CSV line per row;
	// what was written goes with the table, on stderr otherwise
	wrote := opts.ErrOut
	switch format {
	case formatJSON:
		if _, err := opts.Out.Write(append(js, '\n')); err != nil {
			return err
		}
	case formatCSV:
		if err := writeLLMSweepCSV(opts.Out, rows); err != nil {
			return err
		}
	default:
		fmt.Fprint(opts.Out, tab.String())
		wrote = opts.Out
	}
	if opts.OutDir == "" {
		return nil
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
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
	for ci, c := range clusters {
		series[ci].Placer = systemLegend(c)
	}
	lb := llmSweepLabels(opts, param, values, allNum)
	fig := reports.SweepChartLabelled(lb.SweepLabels, series, false)
	fig.Title = lb.Title
	// the scaling chart: tokens/s/GPU and MFU against the setting
	scaling := make([]reports.ScalingSeries, len(clusters))
	for ci, c := range clusters {
		scaling[ci].Name = systemLegend(c)
		for k := range values {
			r := rows[ci*len(values)+k]
			pt := reports.ScalingPoint{X: xs[k], TokensPerSecPerGPU: r.TokensPerSecPerGPU, MFU: r.MFU}
			if r.Error != "" {
				pt.Failed = "error"
			} else if r.OOM != "" {
				pt.Failed = "OOM"
			}
			scaling[ci].Points = append(scaling[ci].Points, pt)
		}
	}
	what := lb.XName
	if param == "gpus" {
		what = "GPUs (" + opts.Scaling + " scaling)"
	}
	sfig := reports.ScalingChart(fmt.Sprintf("%s: tokens/s/GPU and MFU vs %s", lb.What, what), lb.X, scaling, param == "gpus" && allNum)
	stamp := llmSweepStamp(opts).String()
	fig.Caption, sfig.Caption = stamp, stamp
	if _, err := reports.WriteFigures(opts.OutDir, []*reports.Figure{fig, sfig}); err != nil {
		return err
	}
	fmt.Fprintf(wrote, "wrote %s (%d points), %s.png/.svg, %s.png/.svg\n", filepath.Join(opts.OutDir, "results.json"), len(rows), filepath.Join(opts.OutDir, fig.Name), filepath.Join(opts.OutDir, sfig.Name))
	return nil
}

// writeScalingTable lists, per cluster and value, GPUs, global batch,
// iteration time, tokens/s/GPU, MFU and the scaling efficiency (tokens/s/GPU
// against the cluster's first point that ran).
func writeScalingTable(w io.Writer, param string, clusters, values []string, rows []LLMSweepRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\ncluster\t%s\tGPUs\tgbs\titeration s\ttokens/s/GPU\tMFU %%\tefficiency %%\t\n", param)
	for ci, c := range clusters {
		first := 0.0
		for k, v := range values {
			r := rows[ci*len(values)+k]
			if r.Error != "" || r.OOM != "" {
				what := "error"
				if r.Error == "" {
					what = "OOM"
				}
				fmt.Fprintf(tw, "%s\t%s\t\t\t%s\t\t\t\t\n", c, v, what)
				continue
			}
			if first == 0 {
				first = r.TokensPerSecPerGPU
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.3f\t%.0f\t%.1f\t%.1f\t\n", c, v, r.GPUs, r.GlobalBatch, r.StepTime, r.TokensPerSecPerGPU, 100*r.MFU, 100*r.TokensPerSecPerGPU/first)
		}
	}
	tw.Flush()
}

// writeLLMSweepCSV writes sweep --layout's rows, one line each: cluster,
// system, the swept parameter and value, the layout, GPUs and global
// batch, iteration time (s), tokens/s/GPU, MFU, the exposed communication
// per kind (s; column exposed:KIND, in sorted order), the OOM and the
// error. A row that failed or ran out of memory has empty figures.
func writeLLMSweepCSV(w io.Writer, rows []LLMSweepRow) error {
	kinds := map[string]bool{}
	for _, r := range rows {
		for k := range r.ExposedComm {
			kinds[k] = true
		}
	}
	ks := slices.Sorted(maps.Keys(kinds))
	header := []string{"cluster", "system", "param", "value", "layout", "gpus", "globalBatch", "stepTime", "tokensPerSecPerGPU", "mfu"}
	for _, k := range ks {
		header = append(header, "exposed:"+k)
	}
	header = append(header, "oom", "error")
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var recs [][]string
	for _, r := range rows {
		rec := []string{r.Cluster, r.System, r.Param, r.Value, r.Layout, strconv.Itoa(r.GPUs), strconv.Itoa(r.GlobalBatch), "", "", ""}
		ok := r.Error == "" && r.OOM == ""
		if ok {
			rec[7], rec[8], rec[9] = f(r.StepTime), f(r.TokensPerSecPerGPU), f(r.MFU)
		}
		for _, k := range ks {
			cell := ""
			if v, has := r.ExposedComm[k]; ok && has {
				cell = f(v)
			}
			rec = append(rec, cell)
		}
		recs = append(recs, append(rec, r.OOM, r.Error))
	}
	return reports.WriteCSV(w, header, recs)
}
