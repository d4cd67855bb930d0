package reports

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"placesim/internal/units"

	"placesim/runresult"
)

// barChartHeight is the height of a chart with n placer rows of the given
// height each (inches), within sensible bounds.
func barChartHeight(n int, row float64) vg.Length {
	h := 1.3 + row*float64(n)
	return vg.Length(math.Min(math.Max(h, 2.6), 16)) * vg.Inch
}

// placerAxis puts the placers on the Y axis, the first at the top, and
// returns the Y of row i.
func placerAxis(p *plot.Plot, rows []*runresult.Record) func(i int) float64 {
	n := len(rows)
	names := make([]string, n)
	mixed := len(regimesOf(rows)) > 1
	for i, o := range rows {
		names[n-1-i] = rowLabel(o, mixed)
	}
	if n > 0 {
		p.NominalY(names...)
	}
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	return func(i int) float64 { return float64(n - 1 - i) }
}

// shortError is a failed run's label on a chart.
func shortError(o *runresult.Record) string {
	if o.NotComparable != "" {
		return "not comparable in " + regimeOf(o)
	}
	msg := oneLine(o.Error)
	if strings.HasPrefix(msg, "timed out") {
		return msg
	}
	if len(msg) > 48 {
		msg = msg[:47] + "…"
	}
	return "error: " + msg
}

// StepTimeChart is a bar chart of the simulated step time per placer,
// fastest at the top. Out-of-memory runs are red, hatched and labelled
// "OOM"; runs that failed have no bar and say why.
func StepTimeChart(rows []*runresult.Record) *Figure {
	rows = sorted(rows)
	const name, title = "step_time", "Simulated step time per placer (lower is better; slowdown vs the best run in brackets)"
	if len(rows) == 0 {
		return messageFigure(name, title, "no runs to chart")
	}
	p := newPlot("Simulated step time per placer")
	yOf := placerAxis(p, rows)
	maxStep := 0.0
	for _, o := range rows {
		if simulated(o) {
			maxStep = math.Max(maxStep, o.StepTime)
		}
	}
	scale, unit := timeScale(maxStep)
	best := bestByRegime(rows)
	var bars []hbar
	anyOOM := false
	for i, o := range rows {
		b := hbar{Y: yOf(i), Thick: 0.7, Fill: colourOK}
		switch {
		case o.NotComparable != "":
			b.Fill, b.Label = nil, "not comparable in "+regimeOf(o)
		case !simulated(o):
			b.Fill, b.Label = nil, shortError(o)
		default:
			b.To = o.StepTime * scale
			b.Label = units.Seconds(o.StepTime)
			if l := vsBestLabel(o, best); l != "" {
				b.Label += "  (" + l + ")"
			}
			if o.OOM != nil {
				anyOOM = true
				b.Fill, b.Hatch = colourOOM, true
				b.Label += "  OOM on " + o.OOM.DeviceName
			}
		}
		bars = append(bars, b)
	}
	p.Add(newHBars(bars))
	p.X.Label.Text = fmt.Sprintf("step time (%s)", unit)
	p.X.Min = 0
	if maxStep == 0 {
		p.X.Max = 1
	}
	// the legend names the regime: a slowdown compares rows of one regime
	leg := newLegend()
	if rs := regimesOf(rows); len(rs) == 1 {
		leg.Add("fits in memory, regime "+rs[0], swatch{fill: colourOK})
	} else {
		leg.Add("fits in memory; regimes "+strings.Join(rs, ", ")+" (slowdown within each)", swatch{fill: colourOK})
	}
	if anyOOM {
		leg.Add("out of memory", swatch{fill: colourOOM, hatch: true})
	}
	return plotFigure(name, title, 9*vg.Inch, barChartHeight(len(rows), 0.32), p, leg)
}

// PlaceTimeChart is a bar chart of each placer's wall-clock placement
// time on a log scale. A run that timed out is hatched at its timeout.
// Reproducible comparisons do not measure placement time; the figure then
// says so.
func PlaceTimeChart(rows []*runresult.Record) *Figure {
	rows = sorted(rows)
	lo, hi := math.Inf(1), 0.0
	for _, o := range rows {
		if o.PlaceTime != nil {
			v := math.Max(*o.PlaceTime, 1e-9)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	const name, title = "place_time", "Placement time per placer (wall clock, log scale)"
	if len(rows) == 0 {
		return messageFigure(name, title, "no runs to chart")
	}
	if hi == 0 {
		return messageFigure(name, title, "no placement times: the comparison ran in reproducible mode")
	}
	scale, unit := timeScale(hi)
	lo, hi = lo*scale, hi*scale
	floor := math.Pow(10, math.Floor(math.Log10(lo)))
	p := newPlot("Placement time per placer")
	yOf := placerAxis(p, rows)
	var bars []hbar
	for i, o := range rows {
		b := hbar{Y: yOf(i), Thick: 0.7, From: floor, To: floor, Fill: colourOK}
		if o.PlaceTime == nil {
			b.Fill, b.Label = nil, "not measured"
		} else {
			b.To = math.Max(*o.PlaceTime, 1e-9) * scale
			b.Label = units.Seconds(*o.PlaceTime)
			if o.Error != "" {
				b.Fill, b.Hatch = colourOther, true
				b.Label += "  " + shortError(o)
			}
		}
		bars = append(bars, b)
	}
	p.Add(newHBars(bars))
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
	p.X.Min, p.X.Max = floor, math.Pow(10, math.Ceil(math.Log10(hi*1.01)))
	p.X.Label.Text = fmt.Sprintf("placement time (%s, log scale)", unit)
	return plotFigure(name, title, 9*vg.Inch, barChartHeight(len(rows), 0.32), p, nil)
}

// PeakMemoryChart shows, per placer, each device's peak memory as a share
// of its capacity (grouped bars, one per device, labelled with the bytes
// when there is room) against the capacity line at 100%. The device that
// ran out of memory is hatched.
func PeakMemoryChart(rows []*runresult.Record) *Figure {
	rows = sorted(rows)
	const name, title = "peak_memory", "Peak memory per device as a share of its capacity"
	ref := reference(rows)
	if ref == nil {
		return messageFigure(name, title, "no run was simulated: no memory figures")
	}
	k := len(ref.PeakMemory)
	n := len(rows)
	barIn := math.Max(0.09, math.Min(0.2, 12/float64(n*k))) // one bar's height, inches
	p := newPlot("Peak memory per device")
	yOf := placerAxis(p, rows)
	thick := 0.84 / float64(k)
	labels := barIn >= 0.15
	var bars []hbar
	maxPct := 0.0
	for i, o := range rows {
		if !simulated(o) {
			bars = append(bars, hbar{Y: yOf(i), Thick: 0.8, Label: shortError(o)})
			continue
		}
		for d := 0; d < k && d < len(o.PeakMemory); d++ {
			pct := percent(o.PeakMemory[d], o.Capacity[d])
			maxPct = math.Max(maxPct, pct)
			b := hbar{Y: yOf(i) + 0.42 - (float64(d)+0.5)*thick, Thick: thick * 0.9, To: pct, Fill: deviceColour(d)}
			if o.OOM != nil && o.OOM.Device == d {
				b.Hatch = true
			}
			if labels {
				b.Label = units.Bytes(o.PeakMemory[d])
			}
			bars = append(bars, b)
		}
	}
	// Zoom in on low usage: the capacity line shows when some device uses
	// at least a third of its memory; otherwise the legend says where it is.
	capLine := draw.LineStyle{Color: colourCapacity, Width: 1.2, Dashes: []vg.Length{5, 3}}
	capLabel := "capacity (100%)"
	if maxPct >= 100.0/3 {
		p.Add(vline{X: 100, Style: capLine}) // under the bars' labels
		p.X.Max = math.Max(maxPct, 100) * 1.02
	} else {
		capLabel = "capacity: 100%, off scale"
		p.X.Max = math.Max(maxPct*1.1, 0.1)
	}
	p.Add(newHBars(bars))
	p.X.Min = 0
	p.X.Label.Text = "peak memory (% of the device's capacity)"
	leg := newLegend()
	for d := 0; d < k; d++ {
		leg.Add(fmt.Sprintf("%s (%s)", deviceName(ref, d), units.Bytes(ref.Capacity[d])), swatch{fill: deviceColour(d)})
	}
	leg.Add(capLabel, swatch{line: &capLine})
	leg.Add("out of memory", swatch{fill: colourOther, hatch: true})
	h := vg.Length(math.Min(1.3+float64(n)*(float64(k)*barIn+0.1), 16)) * vg.Inch
	h = vg.Length(math.Max(float64(h), float64(2.2*vg.Inch)+float64(k+2)*14))
	return plotFigure(name, title, 9*vg.Inch, h, p, leg)
}
