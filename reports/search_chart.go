package reports

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SearchPoint is one candidate of a layout search.
type SearchPoint struct {
	// PeakMemory is the largest per-GPU peak (bytes), Capacity the GPU's
	// memory; StepTime the simulated iteration (seconds), 0 when the
	// candidate was not simulated (ruled out before, Pruned) or did not
	// fit.
	PeakMemory, Capacity int64
	StepTime             float64
	// Pruned: ruled out by the memory closed form; OOM: simulated, out
	// of memory; Top: among the best N; Marked: a reference layout (the
	// published one).
	Pruned, OOM, Top, Marked bool
}

// SearchChart plots every candidate's iteration time against its peak
// memory per GPU: the simulated ones that fit as dots (the best N
// filled, a reference layout as a ring), those the memory closed form
// ruled out as crosses along the top at their peak, the GPU's memory as
// a vertical line. The Y axis stops at the typical iteration times
// (Q3 + 3 IQR); slower candidates sit on the top edge as triangles.
func SearchChart(title string, pts []SearchPoint, topN int, marked string) *Figure {
	var ys []float64
	var capacity int64
	for _, p := range pts {
		capacity = max(capacity, p.Capacity)
		if !p.Pruned && !p.OOM && p.StepTime > 0 {
			ys = append(ys, p.StepTime)
		}
	}
	if len(ys) == 0 {
		return messageFigure("search", title, "no candidate was simulated within memory")
	}
	q1, q3 := quartiles(ys)
	hi := math.Inf(1)
	if len(ys) >= 4 {
		hi = q3 + 3*(q3-q1)
	}
	top := 0.0
	for _, y := range ys {
		if y <= hi {
			top = math.Max(top, y)
		}
	}
	ceil := top * 1.08
	// the X axis: up to 1.3x the GPU's memory (or the largest peak that
	// fits); candidates beyond sit on the right edge
	xmax := 1.3 * float64(capacity) / 1e9
	for _, p := range pts {
		if !p.Pruned && !p.OOM && p.StepTime > 0 {
			xmax = math.Max(xmax, 1.05*float64(p.PeakMemory)/1e9)
		}
	}
	beyond := 0
	var fit, best, ref, slow, pruned, oom plotter.XYs
	for _, p := range pts {
		x := float64(p.PeakMemory) / 1e9
		if x > xmax {
			x = xmax
			beyond++
		}
		switch {
		case p.Pruned:
			pruned = append(pruned, plotter.XY{X: x, Y: ceil})
		case p.OOM:
			oom = append(oom, plotter.XY{X: x, Y: ceil})
		case p.StepTime > top:
			slow = append(slow, plotter.XY{X: x, Y: ceil})
		case p.Top:
			best = append(best, plotter.XY{X: x, Y: p.StepTime})
		default:
			fit = append(fit, plotter.XY{X: x, Y: p.StepTime})
		}
		if p.Marked && !p.Pruned && !p.OOM && p.StepTime > 0 && p.StepTime <= top {
			ref = append(ref, plotter.XY{X: x, Y: p.StepTime})
		}
	}
	pl := newPlot(title)
	pl.X.Label.Text = "peak memory per GPU (GB)"
	pl.Y.Label.Text = "iteration time (s)"
	leg := newLegend()
	add := func(xy plotter.XYs, shape draw.GlyphDrawer, c color.Color, r vg.Length, name string) {
		if len(xy) == 0 {
			return
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return
		}
		s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: r, Shape: shape}
		pl.Add(s)
		leg.Add(fmt.Sprintf("%s (%d)", name, len(xy)), s)
	}
	grey := color.RGBA{R: 150, G: 150, B: 150, A: 255}
	add(fit, draw.CircleGlyph{}, color.NRGBA{R: 31, G: 119, B: 180, A: 150}, 2.2, "simulated, fits")
	add(best, draw.CircleGlyph{}, color.RGBA{R: 44, G: 160, B: 44, A: 255}, 3.5, fmt.Sprintf("best %d", topN))
	add(slow, draw.TriangleGlyph{}, color.RGBA{R: 31, G: 119, B: 180, A: 255}, 3, fmt.Sprintf("slower than %.3g s (at the top)", top))
	add(oom, draw.CrossGlyph{}, color.RGBA{R: 214, G: 39, B: 40, A: 255}, 3, "simulated, out of memory (at the top)")
	add(pruned, draw.CrossGlyph{}, grey, 2.5, "ruled out before simulating (at the top)")
	if beyond > 0 {
		pl.X.Label.Text += fmt.Sprintf("; %d candidates above %.0f GB drawn at the right edge", beyond, xmax)
	}
	if marked != "" {
		add(ref, draw.RingGlyph{}, color.RGBA{R: 255, G: 127, B: 14, A: 255}, 6, marked)
	}
	if capacity > 0 {
		cx := float64(capacity) / 1e9
		line, err := plotter.NewLine(plotter.XYs{{X: cx, Y: 0}, {X: cx, Y: ceil}})
		if err == nil {
			line.Color = color.RGBA{R: 214, G: 39, B: 40, A: 255}
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			pl.Add(line)
			leg.Add(fmt.Sprintf("GPU memory %.0f GB", cx), line)
		}
	}
	pl.Add(plotter.NewGrid())
	pl.Y.Min, pl.Y.Max = 0, ceil*1.02
	pl.X.Min, pl.X.Max = 0, xmax*1.01
	return plotFigure("search", title, 10*vg.Inch, 5*vg.Inch, pl, leg)
}

var _ plot.Plotter = (*plotter.Scatter)(nil)
