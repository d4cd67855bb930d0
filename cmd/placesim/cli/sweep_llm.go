package cli

import (
	"bytes"
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

// A point of a large-model sweep (sweep --layout) is a study.Record:
// its point the workload, the cluster as given (-c), the swept parameter
// and value as its one setting, the stage planner (study.PlannerEven) and
// the layout's regime; its figures study.LayoutRecord's, with under llm
// the layout as swept, the system it ran on by name (after a system.KEY
// setting), its GPUs and global batch, also where the point failed.

// sweepSystem is the system record r ran on, by name.
func sweepSystem(r *study.Record) string {
	if r.LLM != nil && r.LLM.System != "" {
		return r.LLM.System
	}
	return r.Cluster
}

// sweepFigures are r's iteration time, tokens/s/GPU and MFU (0 when it
// failed).
func sweepFigures(r *study.Record) (step, tokens, mfu float64) {
	if r.LLM == nil || r.Error != "" {
		return 0, 0, 0
	}
	return r.StepTime, r.LLM.TokensPerSecPerGPU, r.LLM.MFU
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
	var rows []study.Record
	failed := 0
	for _, cs := range clusters {
		for _, v := range values {
			system, layout, gpus, gbs := cs, opts.Layout, 0, 0
			var err error
			switch {
			case isSystem:
				system, err = devices.SetSystemSetting(cs, key, v)
			case isGPUs:
				layout, gpus, gbs, err = scaledLayout(opts.Layout, base, v, opts.Scaling == "weak")
			default:
				layout = setLayoutKey(opts.Layout, lkey, v)
			}
			pt := study.Point{Index: len(rows), Workload: opts.Workload, Cluster: cs, Settings: []study.Setting{{Param: param, Value: v}},
				Placer: study.PlannerEven, Regime: "layout:" + layout}
			var rec study.Record
			if err == nil {
				var j *llm.Job
				if j, _, err = layoutJob(opts.Workload, system, layout, layoutFlagNames("--placers")); err == nil {
					system = j.Cluster.Name
					var r *llm.Result
					if r, err = llm.Simulate(j); err == nil {
						pt.Regime = "layout:" + j.Layout.String()
						rec = study.LayoutRecord(pt, j, r)
						gpus, gbs = r.GPUs, j0GBS(layout)
					}
				}
			}
			if err != nil {
				rec = study.Record{Point: pt, Error: err.Error()}
				failed++
			}
			if rec.LLM == nil {
				rec.LLM = &study.LLMFigures{}
			}
			rec.LLM.Layout, rec.LLM.System, rec.LLM.GPUs, rec.LLM.GlobalBatch = layout, system, gpus, gbs
			rows = append(rows, rec)
		}
	}
	if err := writeLLMSweep(opts, format, param, clusters, values, rows); err != nil {
		return err
	}
	if failed > 0 && !opts.AllowFailures {
		for _, r := range rows {
			if r.Error != "" {
				return fmt.Errorf("sweep: %d of %d points failed; first: %s=%s on %s: %s", failed, len(rows), param, r.Settings[0].Value, r.Cluster, r.Error)
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

func writeLLMSweep(opts *SweepOptions, format, param string, clusters, values []string, rows []study.Record) error {
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
			r := &rows[i]
			i++
			switch {
			case r.Error != "":
				fmt.Fprint(tw, "\terror")
			case r.OOM != nil:
				fmt.Fprint(tw, "\tOOM")
			default:
				step, tokens, _ := sweepFigures(r)
				fmt.Fprintf(tw, "\t%.3f s (%.0f tok/s/GPU)", step, tokens)
			}
		}
		fmt.Fprintln(tw, "\t")
	}
	tw.Flush()
	writeScalingTable(&tab, param, clusters, values, rows)
	// results.json: the one results schema (runresult.File), a record
	// per point
	_, rng, _ := strings.Cut(opts.Vary, "=")
	res := &study.Results{Stamp: llmSweepStamp(opts), Records: rows, Scenario: &study.Scenario{Name: "sweep-layout",
		Description: fmt.Sprintf("sweep --layout %s --vary %s", opts.Layout, opts.Vary), Workloads: []string{opts.Workload},
		Clusters: clusters, Placers: []string{study.PlannerEven}, Vary: &study.Vary{Param: param, Range: rng}, Layout: opts.Layout}}
	var jsb bytes.Buffer
	if err := study.EncodeResults(&jsb, res); err != nil {
		return err
	}
	js := bytes.TrimSuffix(jsb.Bytes(), []byte("\n"))
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
		series[ci].Placer = systemLegend(c)
		for k := range values {
			r := &rows[ci*len(values)+k]
			step, _, _ := sweepFigures(r)
			series[ci].Points = append(series[ci].Points, reports.SweepPoint{X: xs[k], StepTime: step, Failed: study.PointFailure(r)})
		}
	}
	lb := llmSweepLabels(opts, param, values, allNum)
	fig := reports.SweepChartLabelled(lb.SweepLabels, series, false)
	fig.Title = lb.Title
	// the scaling chart: tokens/s/GPU and MFU against the setting
	scaling := make([]reports.ScalingSeries, len(clusters))
	for ci, c := range clusters {
		scaling[ci].Name = systemLegend(c)
		for k := range values {
			r := &rows[ci*len(values)+k]
			_, tokens, mfu := sweepFigures(r)
			scaling[ci].Points = append(scaling[ci].Points, reports.ScalingPoint{X: xs[k], TokensPerSecPerGPU: tokens, MFU: mfu, Failed: study.PointFailure(r)})
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
func writeScalingTable(w io.Writer, param string, clusters, values []string, rows []study.Record) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\ncluster\t%s\tGPUs\tgbs\titeration s\ttokens/s/GPU\tMFU %%\tefficiency %%\t\n", param)
	for ci, c := range clusters {
		first := 0.0
		for k, v := range values {
			r := &rows[ci*len(values)+k]
			if r.Error != "" || r.OOM != nil {
				what := "error"
				if r.Error == "" {
					what = "OOM"
				}
				fmt.Fprintf(tw, "%s\t%s\t\t\t%s\t\t\t\t\n", c, v, what)
				continue
			}
			step, tokens, mfu := sweepFigures(r)
			if first == 0 {
				first = tokens
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.3f\t%.0f\t%.1f\t%.1f\t\n", c, v, r.LLM.GPUs, r.LLM.GlobalBatch, step, tokens, 100*mfu, 100*tokens/first)
		}
	}
	tw.Flush()
}

// writeLLMSweepCSV writes sweep --layout's rows, one line each: cluster,
// system, the swept parameter and value, the layout, GPUs and global
// batch, iteration time (s), tokens/s/GPU, MFU, the exposed communication
// per kind (s; column exposed:KIND, in sorted order), the OOM and the
// error. A row that failed or ran out of memory has empty figures.
func writeLLMSweepCSV(w io.Writer, rows []study.Record) error {
	kinds := map[string]bool{}
	for _, r := range rows {
		if r.LLM != nil {
			for k := range r.LLM.ExposedComm {
				kinds[k] = true
			}
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
	for i := range rows {
		r := &rows[i]
		set := r.Settings[0]
		rec := []string{r.Cluster, sweepSystem(r), set.Param, set.Value, r.LLM.Layout, strconv.Itoa(r.LLM.GPUs), strconv.Itoa(r.LLM.GlobalBatch), "", "", ""}
		ok := r.Error == "" && r.OOM == nil
		if ok {
			step, tokens, mfu := sweepFigures(r)
			rec[7], rec[8], rec[9] = f(step), f(tokens), f(mfu)
		}
		for _, k := range ks {
			cell := ""
			if v, has := r.LLM.ExposedComm[k]; ok && has {
				cell = f(v)
			}
			rec = append(rec, cell)
		}
		oom := ""
		if r.OOM != nil {
			oom = r.OOM.Err().Error()
		}
		recs = append(recs, append(rec, oom, r.Error))
	}
	return reports.WriteCSV(w, header, recs)
}
