package reports

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

func labelled(ticks []plot.Tick) []plot.Tick {
	var out []plot.Tick
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t)
		}
	}
	return out
}

func TestLinearTicksLabelAtLeastFour(t *testing.T) {
	t.Parallel()
	for _, r := range [][2]float64{{0, 250}, {0, 1}, {0, 1.1}, {0, 3.2}, {0, 7.6}, {0, 0.011}, {-1, 2}, {3.0, 3.1},
		{0, 105}, {1e9, 1e9 + 3}, {-2000, -1000}, {0, 9.99e-7}, {0.5, 0.75}} {
		ticks := linearTicks{}.Ticks(r[0], r[1])
		labs := labelled(ticks)
		if len(labs) < minLabels || len(labs) > 11 {
			t.Errorf("[%g, %g]: %d labels %v, want %d to 11", r[0], r[1], len(labs), labs, minLabels)
		}
		seen := map[string]bool{}
		for _, l := range labs {
			if l.Value < r[0]-1e-9*math.Abs(r[0]) || l.Value > r[1]+1e-9*math.Abs(r[1]) {
				t.Errorf("[%g, %g]: label %q at %g is outside the range", r[0], r[1], l.Label, l.Value)
			}
			v, err := strconv.ParseFloat(l.Label, 64)
			if err != nil || math.Abs(v-l.Value) > 1e-9*math.Max(1, math.Abs(l.Value)) {
				t.Errorf("[%g, %g]: label %q does not read as its value %g", r[0], r[1], l.Label, l.Value)
			}
			if seen[l.Label] {
				t.Errorf("[%g, %g]: label %q twice", r[0], r[1], l.Label)
			}
			seen[l.Label] = true
		}
	}
}

func TestLogTicksLabelEveryDecade(t *testing.T) {
	t.Parallel()
	tests := []struct {
		min, max float64
		want     []string // labels that must be there
	}{
		{0.1, 10, []string{"0.1", "1", "10"}},
		{0.25, 4, []string{"1"}},
		{1e-4, 100, []string{"0.0001", "0.001", "0.01", "0.1", "1", "10", "100"}},
		{32, 512, []string{"100"}},
	}
	for _, tc := range tests {
		labs := labelled(logTicks{}.Ticks(tc.min, tc.max))
		got := map[string]bool{}
		for _, l := range labs {
			got[l.Label] = true
		}
		for _, w := range tc.want {
			if !got[w] {
				t.Errorf("[%g, %g]: no label %s in %v", tc.min, tc.max, w, labs)
			}
		}
		if len(labs) < minLabels {
			t.Errorf("[%g, %g]: %d labels %v, want at least %d", tc.min, tc.max, len(labs), labs, minLabels)
		}
	}
	if ticks := (logTicks{}).Ticks(-1, 1); ticks != nil {
		t.Errorf("non-positive range: %v, want no ticks (and no panic)", ticks)
	}
}

func TestUseLogXFallsBackToLinear(t *testing.T) {
	t.Parallel()
	p := newPlot("t")
	p.X.Label.Text = "factor"
	if note := useLogX(p, []float64{-1, 1}); note == "" || !strings.Contains(p.X.Label.Text, note) {
		t.Errorf("values -1, 1: note %q, label %q", note, p.X.Label.Text)
	}
	if _, ok := p.X.Scale.(plot.LogScale); ok {
		t.Error("a log scale with a non-positive value")
	}
	p = newPlot("t")
	if note := useLogX(p, []float64{0.5, 2}); note != "" {
		t.Errorf("positive values: note %q", note)
	}
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Error("positive values: no log scale")
	}
}

func TestWrapTextFits(t *testing.T) {
	t.Parallel()
	sty := newPlot("").Title.TextStyle
	title := "random on zoo:transformer?granularity=op&training=true&layers=24&batch=64&framework=pytorch, 8xV100-nvlink-2node: step time 206.059 ms"
	for _, w := range []vg.Length{200, 400, 700} {
		got := wrapText(title, sty, w)
		for _, line := range strings.Split(got, "\n") {
			if sty.Width(line) > w && strings.Contains(line, " ") {
				t.Errorf("width %v: line %q is %v wide", w, line, sty.Width(line))
			}
		}
		if strings.Join(strings.Fields(got), " ") != title {
			t.Errorf("width %v: wrapping changed the words: %q", w, got)
		}
	}
}

// TestTicksExtremeRanges: ranges at the ends of float64 (a time of
// MaxFloat64 seconds, a span that overflows, a range so far from zero that
// its minor steps cannot be counted, subnormals) give a bounded number of
// finite ticks, promptly: the tick code once looped without end on
// max + |max|*1e-12 overflowing to +Inf (issue 31).
func TestTicksExtremeRanges(t *testing.T) {
	t.Parallel()
	const most = maxTicks + 2
	ranges := [][2]float64{
		{0, math.MaxFloat64}, {-math.MaxFloat64, math.MaxFloat64}, {1, math.MaxFloat64},
		{math.MaxFloat64 / 2, math.MaxFloat64}, {1e17, 1e17 + 64}, {-1e300, -1e300 + 1e285},
		{0, 5e-324}, {5e-324, 1e-323}, {0, math.SmallestNonzeroFloat64 * 1e6},
	}
	for _, r := range ranges {
		done := make(chan []plot.Tick, 2)
		go func() { done <- linearTicks{}.Ticks(r[0], r[1]) }()
		go func() {
			if r[0] > 0 {
				done <- logTicks{}.Ticks(r[0], r[1])
			} else {
				done <- nil
			}
		}()
		for i := 0; i < 2; i++ {
			select {
			case ticks := <-done:
				if len(ticks) > 10*most {
					t.Errorf("[%g, %g]: %d ticks, want at most %d", r[0], r[1], len(ticks), 10*most)
				}
				for _, tk := range ticks {
					if math.IsInf(tk.Value, 0) || math.IsNaN(tk.Value) {
						t.Errorf("[%g, %g]: tick at %g", r[0], r[1], tk.Value)
					}
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("[%g, %g]: ticks not back within 5 s", r[0], r[1])
			}
		}
		if n := len(linearTicks{}.Ticks(r[0], r[1])); n > most || n < 2 {
			t.Errorf("[%g, %g]: %d linear ticks, want 2 to %d", r[0], r[1], n, most)
		}
	}
}
