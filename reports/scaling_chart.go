package reports

import (
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ScalingPoint is one point of a large-model scaling sweep.
type ScalingPoint struct {
	// X is the setting (GPUs, an adapter speed, an NVLink domain size).
	X float64
	// TokensPerSecPerGPU and MFU (a fraction) of the simulated iteration;
	// ignored when Failed is set.
	TokensPerSecPerGPU, MFU float64
	// Failed says why there is no iteration ("OOM", "error"), or "".
	Failed string
}

// ScalingSeries is one system's points, in increasing X.
type ScalingSeries struct {
	Name   string
	Points []ScalingPoint
}

// ScalingChart draws a scaling sweep in one figure of two panels sharing
// the X axis: tokens/s/GPU (top) and MFU in percent (bottom) against the
// setting, a line per system (the palette's colours in series order);
// a failed point is a cross at the panel's top edge. logX puts X on a
// log axis (GPU counts in powers of two); a panel's Y axis starts at 0,
// so that a flat line reads as perfect scaling and a drop as its loss.
func ScalingChart(title, xlabel string, series []ScalingSeries, logX bool) *Figure {
	panel := func(ylabel string, y func(ScalingPoint) float64, ptitle string) (*plot.Plot, *plot.Legend, bool) {
		p := newPlot(ptitle)
		p.X.Label.Text = xlabel
		p.Y.Label.Text = ylabel
		leg := newLegend()
		var lines []sweepLine
		top := 0.0
		var xs []float64
		for i, s := range series {
			ln := sweepLine{name: s.Name, colour: i}
			for _, pt := range s.Points {
				v := y(pt)
				ln.pts = append(ln.pts, linePt{x: pt.X, y: v, failed: pt.Failed != ""})
				xs = append(xs, pt.X)
				if pt.Failed == "" && v > top {
					top = v
				}
			}
			lines = append(lines, ln)
		}
		if top <= 0 {
			return nil, nil, false
		}
		drawSweep(p, leg, lines, 0, top, 0, top*1.0001, "")
		p.Y.Min = 0
		if logX && useLogX(p, xs) == "" {
			// a tick at each value (GPU counts 64, 128, ... read as such)
			var ticks []plot.Tick
			seen := map[float64]bool{}
			for _, x := range xs {
				if !seen[x] {
					seen[x] = true
					ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', 6, 64)})
				}
			}
			p.X.Tick.Marker = plot.ConstantTicks(ticks)
		}
		p.Add(plotter.NewGrid())
		return p, leg, true
	}
	tp, tleg, ok1 := panel("tokens/s per GPU", func(p ScalingPoint) float64 { return p.TokensPerSecPerGPU }, title)
	mp, _, ok2 := panel("MFU (%)", func(p ScalingPoint) float64 { return 100 * p.MFU }, "")
	if !ok1 || !ok2 {
		return messageFigure("sweep_scaling", title, "no point was simulated within memory")
	}
	w, h := 9*vg.Inch, 7*vg.Inch
	return &Figure{Name: "sweep_scaling", Title: title, Width: w, Height: h, draw: func(c draw.Canvas) {
		c = draw.Crop(c, margin, -margin, margin, -margin)
		lw := tleg.Rectangle(c).Max.X - tleg.Rectangle(c).Min.X + 12
		pc := draw.Crop(c, 0, -lw, 0, 0)
		fitTitle(tp, pc.Max.X-pc.Min.X)
		// two rows whose data areas line up (plot.Align)
		cs := plot.Align([][]*plot.Plot{{tp}, {mp}}, draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(10)}, pc)
		tp.Draw(cs[0][0])
		mp.Draw(cs[1][0])
		lc := draw.Crop(c, c.Max.X-c.Min.X-lw+6, 0, 0, -tp.Title.Padding-28)
		tleg.Draw(lc)
	}}
}
