package study

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"placesim/internal/units"
	"placesim/reports"
)

// SweepFigures draws a swept scenario's results: step time per placer
// against the varied setting and, with a baseline, the reduction over it.
// Lines are per placer, and per workload and cluster when the scenario has
// several. It returns nil for a scenario without a sweep axis.
func SweepFigures(res *Results) ([]*reports.Figure, error) {
	s := res.Scenario
	if s.Vary == nil {
		return nil, nil
	}
	multi := len(s.Workloads) > 1 || len(s.Clusters) > 1 || len(s.Settings) > 1 || len(s.Seeds) > 1
	multiRegime := len(s.Regimes) > 1
	idx := map[string]int{}
	var series []reports.SweepSeries
	allScale := true
	var xs []float64
	for _, r := range res.Records {
		n := len(r.Settings)
		if n == 0 || r.Settings[n-1].Param != s.Vary.Param {
			return nil, fmt.Errorf("record %d has no value of %s", r.Index, s.Vary.Param)
		}
		x, scale, err := settingValue(s.Vary.Param, r.Settings[n-1].Value)
		if err != nil {
			// a categorical setting (a GPU kind, a fabric, a precision):
			// its position in the swept list, 1-based
			if i := categoryIndex(s.Vary.Range, r.Settings[n-1].Value); i > 0 {
				x, err = float64(i), nil
			} else {
				return nil, err
			}
		}
		allScale = allScale && scale
		xs = append(xs, x)
		name := r.Placer
		if multi {
			var extra []string
			for _, b := range r.Settings[:n-1] {
				extra = append(extra, b.String())
			}
			name = fmt.Sprintf("%s [%s @ %s %s seed %d]", r.Placer, r.Workload, r.Cluster, strings.Join(extra, " "), r.Seed)
		}
		if multiRegime || multi {
			// a line per regime: lines of different regimes are not
			// the same game
			name += " (" + r.Regime + ")"
		}
		i, ok := idx[name]
		if !ok {
			i = len(series)
			idx[name] = i
			series = append(series, reports.SweepSeries{Placer: name})
		}
		series[i].Points = append(series[i].Points, reports.SweepPoint{X: x, StepTime: r.StepTime, Failed: PointFailure(&r)})
	}
	for i := range series {
		sort.SliceStable(series[i].Points, func(a, b int) bool { return series[i].Points[a].X < series[i].Points[b].X })
	}
	logX := sweepLogX(s.Vary.Range, allScale, xs)
	// the charts draw at most reports.MaxChartPoints; results.json and the
	// table keep every record
	shown, note := reports.ThinSweep(series)
	figs := []*reports.Figure{reports.SweepChart(s.Vary.Param, shown, logX)}
	if s.Baseline != "" && !multi && !multiRegime {
		figs = append(figs, reports.ImprovementChart(s.Vary.Param, s.Baseline, shown, logX))
	}
	if note != "" {
		for _, f := range figs {
			f.Title += " (" + note + ")"
		}
	}
	return figs, nil
}

// sweepLogX says whether a sweep's X axis is logarithmic: for scale
// factors, for a LO..HI:N range (its values are log steps, e.g. batch
// 1..1024:6 is 1, 4, 16, ..., 1024) and for a list whose values span two
// decades or more, where a linear axis would crowd the small values into
// its left edge. The chart falls back to linear, saying so, when a value
// is not positive.
func sweepLogX(rangeSpec string, allScale bool, xs []float64) bool {
	if allScale || strings.Contains(rangeSpec, "..") {
		return true
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo > 0 && hi >= 100*lo
}

// settingValue turns a what-if value into a number for plotting; scale
// reports whether it was a factor ("4x").
func settingValue(param, v string) (x float64, scale bool, err error) {
	if f, ok := strings.CutSuffix(v, "x"); ok {
		x, err = strconv.ParseFloat(f, 64)
		return x, true, err
	}
	switch {
	case strings.HasSuffix(param, ".bandwidth"), strings.HasSuffix(param, ".membw"), param == "system.adapter-speed":
		x, err = units.ParseRate(v)
	case strings.HasSuffix(param, ".latency"):
		x, err = units.ParseSeconds(v)
	case strings.HasSuffix(param, ".flops"):
		x, err = units.ParseFLOPS(v)
	case strings.HasSuffix(param, ".memory"):
		var b int64
		b, err = units.ParseBytes(v)
		x = float64(b)
	case param == "system.oversubscription":
		x, err = strconv.ParseFloat(strings.TrimSuffix(v, ":1"), 64)
	default:
		x, err = strconv.ParseFloat(v, 64)
	}
	return x, false, err
}

// categoryIndex is v's 1-based position in a list range "a,b,c" (0 when
// it is not there).
func categoryIndex(rangeSpec, v string) int {
	for i, c := range strings.Split(rangeSpec, ",") {
		if strings.TrimSpace(c) == v {
			return i + 1
		}
	}
	return 0
}

// ScenarioFigures draws a scenario without a sweep axis: one step-time bar
// chart per workload, cluster, setting, seed and regime, with every placer of the
// scenario (files step_time_01, step_time_02, ... in point order).
func ScenarioFigures(res *Results) []*reports.Figure {
	if res.Scenario.Vary != nil {
		return nil
	}
	var keys []string
	groups := map[string][]*Record{}
	for i := range res.Records {
		r := &res.Records[i]
		k := fmt.Sprintf("%s on %s", r.Workload, r.Cluster)
		if s := settingsLabel(r.Settings); s != "" {
			k += ", " + s
		}
		if len(res.Scenario.Seeds) > 1 {
			k += fmt.Sprintf(", seed %d", r.Seed)
		}
		k += ", regime " + r.Regime
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	var figs []*reports.Figure
	for i, k := range keys {
		if i == reports.MaxFigures {
			break // a chart per comparison, up to reports.MaxFigures
		}
		f := reports.StepTimeChart(groups[k])
		f.Name = fmt.Sprintf("step_time_%02d", i+1)
		f.Title = "Simulated step time per placer: " + k
		figs = append(figs, f)
	}
	return figs
}

func settingsLabel(ss []Setting) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, s.String())
	}
	return strings.Join(parts, " ")
}
