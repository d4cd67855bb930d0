package reports_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"placesim/reports"
	"placesim/study"
)

// Pixel tolerances of the golden image test: the share of pixels whose
// colour may differ by more than pixelDelta in some channel (anti-aliasing
// of a different font rasteriser), and that delta (of 65535).
const (
	maxDifferingShare = 0.002
	pixelDelta        = 0x2000
)

// goldenCharts is one figure per chart kind on a fixed input.
func goldenCharts(t *testing.T) map[string]*reports.Figure {
	t.Helper()
	rows, c := fixture(t, true)
	detail := tracedBest(t, rows, c)
	long := *detail // a title longer than the plot is wide: it must wrap, not be cut
	long.Workload = "zoo:transformer?granularity=op&training=true&layers=24&batch=64&framework=pytorch&precision=fp16"
	gantt, err := reports.Gantt(&long, c)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := reports.MemoryTimeline(detail, c)
	if err != nil {
		t.Fatal(err)
	}
	// placement times are wall clock: fixed ones here
	timed := make([]*study.Record, len(rows))
	for i, o := range rows {
		cp := *o
		pt := 2e-4 * float64(int(1)<<(2*i))
		cp.PlaceTime = &pt
		timed[i] = &cp
	}
	return map[string]*reports.Figure{
		"step_time":             reports.StepTimeChart(rows),
		"place_time":            reports.PlaceTimeChart(timed),
		"peak_memory":           reports.PeakMemoryChart(rows),
		"gantt":                 gantt,
		"memory_timeline":       mem,
		"sweep_step_time":       reports.SweepChart("link.nvlink.bandwidth", sweepFixture(), true),
		"sweep_nonpositive_log": reports.SweepChart("device.V100-32GB.flops", nonPositiveSweep(), true),
		"sweep_improvement":     reports.ImprovementChart("link.nvlink.bandwidth", "round-robin", sweepFixture(), true),
		"message":               reports.StepTimeChart(nil),
	}
}

// sweepFixture is a sweep over 0.1x..10x with one outlier (a point 40
// times the others, which would flatten the axis) and an OOM point.
func sweepFixture() []reports.SweepSeries {
	xs := []float64{0.1, 0.2154, 0.4642, 1, 2.154, 4.642, 10}
	rr := []float64{7e-3, 5.9e-3, 3.8e-3, 3.1e-3, 2.8e-3, 2.7e-3, 2.6e-3}
	var single, robin, metf reports.SweepSeries
	single.Placer, robin.Placer, metf.Placer = "single", "round-robin", "m-etf"
	for i, x := range xs {
		single.Points = append(single.Points, reports.SweepPoint{X: x, StepTime: 3.07e-3})
		robin.Points = append(robin.Points, reports.SweepPoint{X: x, StepTime: rr[i]})
		pt := reports.SweepPoint{X: x, StepTime: 2.5e-3 + 1e-4*float64(i)}
		switch i {
		case 1:
			pt.StepTime = 0.12 // the outlier
		case 5:
			pt.Failed = "OOM"
		}
		metf.Points = append(metf.Points, pt)
	}
	return []reports.SweepSeries{single, robin, metf}
}

// nonPositiveSweep has factors -1 and 0: a log axis cannot show them.
func nonPositiveSweep() []reports.SweepSeries {
	return []reports.SweepSeries{{Placer: "single", Points: []reports.SweepPoint{
		{X: -1, Failed: "error"}, {X: 0, Failed: "error"}, {X: 1, StepTime: 3.07e-3}, {X: 2, StepTime: 1.6e-3}}}}
}

// TestGoldenCharts renders one figure per chart kind on a fixed input and
// compares its decoded pixels with testdata/charts/NAME.png; -update
// rewrites them (look at them before committing).
func TestGoldenCharts(t *testing.T) {
	t.Parallel()
	for name, fig := range goldenCharts(t) {
		t.Run(name, func(t *testing.T) {
			data, err := fig.Render(reports.PNG)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "charts", name+".png")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./reports -run TestGoldenCharts -update creates it)", err)
			}
			if err := samePixels(want, data); err != nil {
				got := filepath.Join(t.TempDir(), name+".png")
				_ = os.WriteFile(got, data, 0o644)
				t.Errorf("%s: %v; this run's image: %s", path, err, got)
			}
		})
	}
}

// samePixels compares two PNGs by their decoded pixels.
func samePixels(a, b []byte) error {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return fmt.Errorf("golden PNG: %w", err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("rendered PNG: %w", err)
	}
	if ia.Bounds() != ib.Bounds() {
		return fmt.Errorf("size %v, golden %v", ib.Bounds().Size(), ia.Bounds().Size())
	}
	r := ia.Bounds()
	differ := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if colourDelta(ia, ib, x, y) > pixelDelta {
				differ++
			}
		}
	}
	if share := float64(differ) / float64(r.Dx()*r.Dy()); share > maxDifferingShare {
		return fmt.Errorf("%d pixels (%.2f%%) differ, more than %.2f%%", differ, 100*share, 100*maxDifferingShare)
	}
	return nil
}

func colourDelta(a, b image.Image, x, y int) uint32 {
	r1, g1, b1, a1 := a.At(x, y).RGBA()
	r2, g2, b2, a2 := b.At(x, y).RGBA()
	d := uint32(0)
	for _, p := range [][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}, {a1, a2}} {
		if p[0] > p[1] {
			d = max(d, p[0]-p[1])
		} else {
			d = max(d, p[1]-p[0])
		}
	}
	return d
}
