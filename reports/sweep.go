package reports

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SweepPoint is one placer's outcome at one value of a swept setting.
type SweepPoint struct {
	// X is the setting's numeric value (a scale factor or a quantity).
	X float64
	// StepTime in seconds; ignored when Failed is set.
	StepTime float64
	// Failed says why there is no step time ("OOM", an error), or "".
	Failed string
}

// SweepSeries is one placer's points, in increasing X.
type SweepSeries struct {
	Placer string
	Points []SweepPoint
}

// SweepChart plots step time against the swept setting, one line per
// placer (the shape of Pesto's Figure 8). Failed points are left out of the
// line and marked with a cross at the top of the plot. logX puts the
// setting on a log axis (for scale factors in log steps); when a value is
// not positive the axis stays linear and says so.
//
// The Y axis shows the spread of the typical points: a step time above
// the upper fence max(Q3 + 3 IQR, 3 Q3) of all simulated step times
// (Tukey's far-out fence, widened so that a factor of 3 is never an
// outlier) would flatten every line, so it is drawn as a triangle at the
// top edge, labelled with its value, and the line breaks around it, as it
// does at a failed point.
func SweepChart(param string, series []SweepSeries, logX bool) *Figure {
	return SweepChartLabelled(SweepLabels{Title: "Simulated step time vs " + param, X: param, Y: "step time"}, series, logX)
}

// SweepLabels names a sweep chart's parts: Title, the X axis label (with
// its unit, e.g. "NVLink domain size (GPUs)") and the Y quantity, to
// which the time unit the axis uses is added ("iteration time (s)").
type SweepLabels struct{ Title, X, Y string }

// SweepChartLabelled is SweepChart with the labels given.
func SweepChartLabelled(lb SweepLabels, series []SweepSeries, logX bool) *Figure {
	param := lb.X
	var ys []float64
	lines := make([]sweepLine, len(series))
	for i, s := range series {
		lines[i].name, lines[i].colour = s.Placer, i
		for _, pt := range s.Points {
			lines[i].pts = append(lines[i].pts, linePt{x: pt.X, y: pt.StepTime, failed: pt.Failed != ""})
			if pt.Failed == "" {
				ys = append(ys, pt.StepTime)
			}
		}
	}
	if len(ys) == 0 || floats.Max(ys) <= 0 {
		return messageFigure("sweep_step_time", "Step time vs "+param, "no point was simulated within memory")
	}
	q1, q3 := quartiles(ys)
	hi := math.Inf(1)
	if len(ys) >= 4 {
		hi = math.Max(q3+3*(q3-q1), 3*q3)
	}
	top := 0.0 // the largest typical step time
	for _, y := range ys {
		if y <= hi {
			top = math.Max(top, y)
		}
	}
	scale, unit := timeScale(top)
	for i := range lines {
		for j := range lines[i].pts {
			lines[i].pts[j].y *= scale
		}
	}
	p := newPlot(lb.Title)
	p.X.Label.Text = lb.X
	p.Y.Label.Text = lb.Y + " (" + unit + ")"
	leg := newLegend()
	drawSweep(p, leg, lines, 0, top*scale, math.Inf(-1), hi*scale, unit)
	p.Y.Min = 0
	if logX {
		useLogX(p, sweepXs(series))
	}
	p.Add(plotter.NewGrid())
	return plotFigure("sweep_step_time", "Step time vs "+param, 9*vg.Inch, 4.5*vg.Inch, p, leg)
}

// ImprovementChart plots each placer's step-time reduction over baseline
// (percent; positive is faster) against the swept setting. Its Y axis
// shows the typical points: a reduction beyond Tukey's far-out fences
// (Q1 - 3 IQR, Q3 + 3 IQR, with an IQR of at least 5 points) is drawn as a
// triangle at the edge, labelled with its value.
func ImprovementChart(param, baseline string, series []SweepSeries, logX bool) *Figure {
	title := fmt.Sprintf("Step-time reduction over %s vs %s", baseline, param)
	var base *SweepSeries
	for i := range series {
		if series[i].Placer == baseline {
			base = &series[i]
		}
	}
	if base == nil {
		return messageFigure("sweep_improvement", title, "baseline "+baseline+" is not among the placers")
	}
	ref := map[float64]float64{}
	for _, pt := range base.Points {
		if pt.Failed == "" {
			ref[pt.X] = pt.StepTime
		}
	}
	var lines []sweepLine
	var ys []float64
	for i, s := range series {
		if s.Placer == baseline {
			continue
		}
		l := sweepLine{name: s.Placer, colour: i}
		for _, pt := range s.Points {
			if b, ok := ref[pt.X]; ok && pt.Failed == "" && b > 0 {
				y := 100 * (b - pt.StepTime) / b
				l.pts = append(l.pts, linePt{x: pt.X, y: y})
				ys = append(ys, y)
			}
		}
		lines = append(lines, l)
	}
	if len(ys) == 0 {
		return messageFigure("sweep_improvement", title, "no point where both a placer and "+baseline+" fit in memory")
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if len(ys) >= 4 {
		q1, q3 := quartiles(ys)
		iqr := math.Max(q3-q1, 5)
		lo, hi = q1-3*iqr, q3+3*iqr
	}
	tlo, thi := math.Inf(1), math.Inf(-1) // the typical range
	for _, y := range ys {
		if y >= lo && y <= hi {
			tlo, thi = math.Min(tlo, y), math.Max(thi, y)
		}
	}
	p := newPlot(title)
	p.X.Label.Text = param
	p.Y.Label.Text = "reduction over " + baseline + " (%)"
	leg := newLegend()
	drawSweep(p, leg, lines, tlo, thi, lo, hi, "%")
	if logX {
		useLogX(p, sweepXs(series))
	}
	p.Add(plotter.NewGrid())
	return plotFigure("sweep_improvement", title, 9*vg.Inch, 4.5*vg.Inch, p, leg)
}

// sweepLine is one placer's points in a chart's units.
type sweepLine struct {
	name   string
	colour int // index into the palette: a placer keeps its colour across charts
	pts    []linePt
}

type linePt struct {
	x, y   float64
	failed bool
}

// drawSweep adds a line per entry of lines to p with the Y axis set to the
// typical range [tlo, thi] (plus a margin): a point outside the fences
// [lo, hi] is a triangle at the nearer edge labelled with its value (in
// unit), a failed point a cross at the top edge; lines break at both.
func drawSweep(p *plot.Plot, leg *plot.Legend, lines []sweepLine, tlo, thi, lo, hi float64, unit string) {
	pad := 0.12 * (thi - tlo)
	if pad == 0 {
		pad = math.Max(0.12*math.Abs(thi), 1e-9)
	}
	p.Y.Min, p.Y.Max = tlo-pad, thi+pad
	topEdge, lowEdge := thi+pad/2, tlo-pad/2
	var offLabels plotter.XYLabels
	anyOff, anyBad := false, false
	for _, ln := range lines {
		var seg, bad, off plotter.XYs
		clr := deviceColour(ln.colour)
		drawn := false
		flush := func() {
			if len(seg) == 0 {
				return
			}
			l, pts, err := plotter.NewLinePoints(seg)
			if err == nil {
				l.Color, l.Width = clr, vg.Points(1.6)
				pts.Color, pts.Shape, pts.Radius = clr, draw.CircleGlyph{}, vg.Points(2.5)
				p.Add(l, pts)
				if !drawn {
					leg.Add(ln.name, l, pts)
					drawn = true
				}
			}
			seg = nil
		}
		for _, pt := range ln.pts {
			switch {
			case pt.failed:
				flush()
				bad = append(bad, plotter.XY{X: pt.x, Y: topEdge})
			case pt.y > hi || pt.y < lo:
				flush()
				e := topEdge
				if pt.y < lo {
					e = lowEdge
				}
				off = append(off, plotter.XY{X: pt.x, Y: e})
				offLabels.XYs = append(offLabels.XYs, plotter.XY{X: pt.x, Y: e})
				offLabels.Labels = append(offLabels.Labels, " "+strconv.FormatFloat(pt.y, 'g', 4, 64)+" "+unit)
			default:
				seg = append(seg, plotter.XY{X: pt.x, Y: pt.y})
			}
		}
		flush()
		for _, m := range []struct {
			xy    plotter.XYs
			shape draw.GlyphDrawer
			flag  *bool
		}{{off, draw.TriangleGlyph{}, &anyOff}, {bad, draw.CrossGlyph{}, &anyBad}} {
			if len(m.xy) == 0 {
				continue
			}
			if sc, err := plotter.NewScatter(m.xy); err == nil {
				sc.Color, sc.Shape, sc.Radius = clr, m.shape, vg.Points(4)
				p.Add(sc)
				*m.flag = true
				if !drawn {
					leg.Add(ln.name, sc)
					drawn = true
				}
			}
		}
	}
	if anyOff {
		if lab, err := plotter.NewLabels(offLabels); err == nil {
			for i := range lab.TextStyle {
				lab.TextStyle[i].Font.Size = 8.5
				lab.TextStyle[i].Font.Variant = sansFont
				lab.TextStyle[i].YAlign = draw.YCenter
			}
			p.Add(lab)
		}
		leg.Add("off scale (value shown)", glyphThumb(draw.TriangleGlyph{}))
	}
	if anyBad {
		leg.Add("failed (OOM or error)", glyphThumb(draw.CrossGlyph{}))
	}
}

func sweepXs(series []SweepSeries) []float64 {
	var xs []float64
	for _, s := range series {
		for _, pt := range s.Points {
			xs = append(xs, pt.X)
		}
	}
	return xs
}

// quartiles are the first and third quartiles of ys.
func quartiles(ys []float64) (q1, q3 float64) {
	s := append([]float64(nil), ys...)
	sort.Float64s(s)
	return stat.Quantile(0.25, stat.LinInterp, s, nil), stat.Quantile(0.75, stat.LinInterp, s, nil)
}

// glyphThumb is a grey legend thumbnail of a point glyph.
func glyphThumb(g draw.GlyphDrawer) plot.Thumbnailer {
	return glyph{sty: draw.GlyphStyle{Color: colourOther, Shape: g, Radius: vg.Points(4)}}
}

type glyph struct{ sty draw.GlyphStyle }

// Thumbnail implements plot.Thumbnailer.
func (g glyph) Thumbnail(c *draw.Canvas) { c.DrawGlyph(g.sty, c.Center()) }

// WriteFigures renders each figure as PNG and SVG into dir (atomically)
// and returns the files written.
func WriteFigures(dir string, figs []*Figure) ([]string, error) {
	return WriteFiguresContext(context.Background(), dir, figs)
}

// WriteFiguresContext is WriteFigures stopped between files when ctx is
// cancelled (Ctrl-C), with ctx's error.
func WriteFiguresContext(ctx context.Context, dir string, figs []*Figure) ([]string, error) {
	var files []string
	for _, f := range figs {
		for _, format := range []string{PNG, SVG} {
			if err := ctx.Err(); err != nil {
				return files, err
			}
			data, err := f.Render(format)
			if err != nil {
				return files, err
			}
			path := filepath.Join(dir, f.Name+"."+format)
			if err := WriteFileAtomic(path, data); err != nil {
				return files, err
			}
			files = append(files, path)
		}
	}
	return files, nil
}
