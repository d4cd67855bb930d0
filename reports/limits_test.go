package reports

import (
	"fmt"
	"math"
	"placesim/runresult"
	"testing"
	"time"
)

// TestChartsOfExtremeValues: charts of step times at the ends of float64
// (MaxFloat64, the smallest subnormal, 0 beside 1e300) render as PNG and
// SVG within seconds: the tick code once looped without end on them
// (issue 31).
func TestChartsOfExtremeValues(t *testing.T) {
	t.Parallel()
	for _, vals := range [][]float64{
		{1.797e308, 1e-3}, {math.MaxFloat64, math.MaxFloat64 / 2}, {5e-324, 1e-3}, {0, 1e300}, {1e17, 1e17 + 64},
	} {
		rows := make([]*runresult.Record, len(vals))
		series := []SweepSeries{{Placer: "p"}}
		for i, v := range vals {
			rows[i] = &runresult.Record{Point: runresult.Point{Placer: fmt.Sprintf("p%d", i), Workload: "w", Cluster: "c", Regime: "step"}, StepTime: v, Throughput: 1}
			series[0].Points = append(series[0].Points, SweepPoint{X: float64(i + 1), StepTime: v})
		}
		for _, f := range []*Figure{StepTimeChart(rows), SweepChart("batch", series, true), SweepChart("batch", series, false)} {
			for _, format := range []string{PNG, SVG} {
				done := make(chan error, 1)
				go func() { _, err := f.Render(format); done <- err }()
				select {
				case err := <-done:
					if err != nil {
						t.Logf("%v: %s %s: %v (an error is allowed, a hang is not)", vals, f.Name, format, err)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("%v: %s %s not rendered within 10 s", vals, f.Name, format)
				}
			}
		}
	}
}

// TestThinSweep: a sweep of more than MaxChartPoints points or
// MaxChartLines lines is drawn from a bounded part, each line keeping its
// first and last point, and the note says what was left out.
func TestThinSweep(t *testing.T) {
	t.Parallel()
	mk := func(lines, pts int) []SweepSeries {
		s := make([]SweepSeries, lines)
		for i := range s {
			s[i].Placer = fmt.Sprint(i)
			for j := 0; j < pts; j++ {
				s[i].Points = append(s[i].Points, SweepPoint{X: float64(j), StepTime: 1})
			}
		}
		return s
	}
	tests := []struct {
		lines, pts int
		note       string
	}{
		{2, 100, ""},
		{40, 10000, "every 20-th point of 400000"},
		{200, 10, "first 64 of 200 lines"},
		{1000, 1000, "first 64 of 1000 lines, every 4-th point"},
	}
	for _, tc := range tests {
		out, note := ThinSweep(mk(tc.lines, tc.pts))
		total := 0
		for _, s := range out {
			total += len(s.Points)
			if len(s.Points) > 0 && (s.Points[0].X != 0 || s.Points[len(s.Points)-1].X != float64(tc.pts-1)) {
				t.Errorf("%d x %d: a line lost its first or last point", tc.lines, tc.pts)
			}
		}
		if note != tc.note || len(out) > MaxChartLines || total > MaxChartPoints+len(out) {
			t.Errorf("%d x %d: %d lines, %d points, note %q; want at most %d lines, %d points, note %q",
				tc.lines, tc.pts, len(out), total, note, MaxChartLines, MaxChartPoints, tc.note)
		}
	}
}
