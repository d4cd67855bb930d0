package reports

import (
	"fmt"
	"math"
	"path/filepath"

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
// setting on a log axis (for scale factors in log steps).
func SweepChart(param string, series []SweepSeries, logX bool) *Figure {
	p := newPlot("Simulated step time vs " + param)
	p.X.Label.Text = param
	ymax := 0.0
	for _, s := range series {
		for _, pt := range s.Points {
			if pt.Failed == "" {
				ymax = math.Max(ymax, pt.StepTime)
			}
		}
	}
	if ymax == 0 {
		return messageFigure("sweep_step_time", "Step time vs "+param, "no point was simulated within memory")
	}
	scale, unit := timeScale(ymax)
	p.Y.Label.Text = "step time (" + unit + ")"
	p.Y.Min = 0
	leg := newLegend()
	for i, s := range series {
		var ok, bad plotter.XYs
		for _, pt := range s.Points {
			if pt.Failed == "" {
				ok = append(ok, plotter.XY{X: pt.X, Y: pt.StepTime * scale})
			} else {
				bad = append(bad, plotter.XY{X: pt.X, Y: ymax * scale * 1.04})
			}
		}
		clr := deviceColour(i)
		if len(ok) > 0 {
			l, pts, err := plotter.NewLinePoints(ok)
			if err == nil {
				l.Color, l.Width = clr, vg.Points(1.6)
				pts.Color, pts.Shape, pts.Radius = clr, draw.CircleGlyph{}, vg.Points(2.5)
				p.Add(l, pts)
				leg.Add(s.Placer, l, pts)
			}
		}
		if len(bad) > 0 {
			sc, err := plotter.NewScatter(bad)
			if err == nil {
				sc.Color, sc.Shape, sc.Radius = clr, draw.CrossGlyph{}, vg.Points(4)
				p.Add(sc)
				if len(ok) == 0 {
					leg.Add(s.Placer+" (failed)", sc)
				}
			}
		}
	}
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	return plotFigure("sweep_step_time", "Step time vs "+param, 9*vg.Inch, 4.5*vg.Inch, p, leg)
}

// ImprovementChart plots each placer's step-time reduction over baseline
// (percent; positive is faster) against the swept setting.
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
	p := newPlot(title)
	p.X.Label.Text = param
	p.Y.Label.Text = "reduction over " + baseline + " (%)"
	leg := newLegend()
	n := 0
	for i, s := range series {
		if s.Placer == baseline {
			continue
		}
		var xy plotter.XYs
		for _, pt := range s.Points {
			if b, ok := ref[pt.X]; ok && pt.Failed == "" && b > 0 {
				xy = append(xy, plotter.XY{X: pt.X, Y: 100 * (b - pt.StepTime) / b})
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			continue
		}
		clr := deviceColour(i)
		l.Color, l.Width = clr, vg.Points(1.6)
		pts.Color, pts.Shape, pts.Radius = clr, draw.CircleGlyph{}, vg.Points(2.5)
		p.Add(l, pts)
		leg.Add(s.Placer, l, pts)
		n++
	}
	if n == 0 {
		return messageFigure("sweep_improvement", title, "no point where both a placer and "+baseline+" fit in memory")
	}
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	return plotFigure("sweep_improvement", title, 9*vg.Inch, 4.5*vg.Inch, p, leg)
}

// WriteFigures renders each figure as PNG and SVG into dir (atomically)
// and returns the files written.
func WriteFigures(dir string, figs []*Figure) ([]string, error) {
	var files []string
	for _, f := range figs {
		for _, format := range []string{PNG, SVG} {
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
