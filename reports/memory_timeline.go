package reports

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"placesim/devices"
	"placesim/engine"
	"placesim/internal/units"

	"placesim/runresult"
)

// memoryPoints is the most points a device's memory curve keeps; longer
// timelines are reduced to their per-interval minimum and maximum, which
// keeps every peak.
const memoryPoints = 4000

// MemoryTimeline charts one traced run's memory in use over time, one
// panel per device with its capacity (dashed, when the curve comes within
// half of it) and its peak in the panel's title. o must carry a trace.
func MemoryTimeline(o *runresult.Record, c *devices.Cluster) (*Figure, error) {
	if err := checkTraced(o); err != nil {
		return nil, fmt.Errorf("memory timeline: %w", err)
	}
	res := o.Result
	mem := res.Trace.Memory
	if len(mem) != len(c.Devices) {
		return nil, fmt.Errorf("memory timeline of %s: %d device timelines for %d devices", o.Placer, len(mem), len(c.Devices))
	}
	tscale, tunit := timeScale(res.StepTime)
	var top int64
	for d := range mem {
		top = max(top, peakOf(mem[d]))
	}
	bdiv, bunit := byteScale(top)
	capStyle := draw.LineStyle{Color: colourCapacity, Width: 1.2, Dashes: []vg.Length{5, 3}}

	plots := make([]*plot.Plot, len(mem))
	for d, samples := range mem {
		peak := peakOf(samples)
		capacity := c.Devices[d].Memory
		p := newPlot(fmt.Sprintf("%s: peak %s of %s (%.0f%%)", c.Devices[d].Name, units.Bytes(peak), units.Bytes(capacity), percent(peak, capacity)))
		p.Title.TextStyle.Font.Size = 10.5
		line, err := plotter.NewLine(stepPoints(envelope(samples, memoryPoints), res.StepTime, tscale, bdiv))
		if err != nil {
			return nil, fmt.Errorf("memory timeline of %s on %s: %w", o.Placer, c.Devices[d].Name, err)
		}
		line.Color = deviceColour(d)
		line.Width = 1.2
		line.FillColor = mix(deviceColour(d), white, 0.7)
		p.Add(line)
		if capacity > 0 && float64(peak) >= 0.5*float64(capacity) {
			p.Add(hline{Y: float64(capacity) / bdiv, Style: capStyle})
		}
		if o.OOM != nil && o.OOM.Device == d {
			p.Title.Text += "  OUT OF MEMORY"
			p.Title.TextStyle.Color = colourCapacity
		}
		p.X.Min, p.X.Max = 0, math.Max(res.StepTime*tscale, 1e-12)
		plots[d] = p
		p.X.Label.Text = fmt.Sprintf("time (%s)", tunit)
		p.Y.Label.Text = "in use (" + bunit + ")"
	}
	// one Y scale for every panel, so that devices compare at a glance
	ymax := 0.0
	for _, p := range plots {
		ymax = math.Max(ymax, p.Y.Max)
	}
	if ymax <= 0 {
		ymax = 1
	}
	for _, p := range plots {
		p.Y.Min, p.Y.Max = 0, ymax*1.08
	}
	cols := 1
	if len(mem) > 1 {
		cols = 2
	}
	nrows := (len(mem) + cols - 1) / cols
	w := 12 * vg.Inch
	h := vg.Length(math.Min(0.6+2.6*float64(nrows), 24)) * vg.Inch
	return &Figure{Name: "memory_timeline", Title: fmt.Sprintf("Memory in use over time per device, %s run", o.Placer),
		Width: w, Height: h, draw: func(dc draw.Canvas) {
			grid := make([][]*plot.Plot, nrows)
			for r := range grid {
				grid[r] = make([]*plot.Plot, cols)
				for col := range grid[r] {
					if i := r*cols + col; i < len(plots) {
						grid[r][col] = plots[i]
					}
				}
			}
			tiles := draw.Tiles{Rows: nrows, Cols: cols, PadX: 0.4 * vg.Inch, PadY: 0.25 * vg.Inch,
				PadTop: 0.15 * vg.Inch, PadBottom: 0.1 * vg.Inch, PadLeft: 0.1 * vg.Inch, PadRight: 0.2 * vg.Inch}
			canvases := plot.Align(grid, tiles, dc)
			for r := range grid {
				for col, p := range grid[r] {
					if p != nil {
						p.Draw(canvases[r][col])
					}
				}
			}
		}}, nil
}

func peakOf(s []engine.MemSample) int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.Bytes)
	}
	return m
}

// envelope reduces a timeline to at most about 2*n samples: in each of n
// equal time buckets it keeps the first sample, the minimum and the
// maximum, in time order.
func envelope(s []engine.MemSample, n int) []engine.MemSample {
	if len(s) <= 2*n {
		return s
	}
	t0, t1 := s[0].Time, s[len(s)-1].Time
	width := (t1 - t0) / float64(n)
	var out []engine.MemSample
	for i := 0; i < len(s); {
		b := int((s[i].Time - t0) / width)
		j := i
		lo, hi := i, i
		for j < len(s) && (int((s[j].Time-t0)/width) == b || width == 0) {
			if s[j].Bytes < s[lo].Bytes {
				lo = j
			}
			if s[j].Bytes > s[hi].Bytes {
				hi = j
			}
			j++
		}
		keep := []int{i, lo, hi, j - 1}
		last := -1
		for _, k := range sortedUnique(keep) {
			if k != last {
				out = append(out, s[k])
				last = k
			}
		}
		i = j
	}
	return out
}

func sortedUnique(a []int) []int {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
	return a
}

// stepPoints turns samples (memory from each sample's time on) into the
// corners of a step curve from time 0 to end, scaled to the axes' units.
func stepPoints(s []engine.MemSample, end, tscale, bdiv float64) plotter.XYs {
	pts := plotter.XYs{{X: 0, Y: 0}}
	cur := 0.0
	for _, x := range s {
		y := float64(x.Bytes) / bdiv
		pts = append(pts, plotter.XY{X: x.Time * tscale, Y: cur}, plotter.XY{X: x.Time * tscale, Y: y})
		cur = y
	}
	pts = append(pts, plotter.XY{X: math.Max(end, 0) * tscale, Y: cur})
	return pts
}
