package reports

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// minLabels is the fewest labelled ticks on a numeric axis: with fewer a
// reader cannot tell the scale (a peak-memory axis labelled only 0 and
// 250, a log axis labelled only 1).
const minLabels = 4

// linearTicks labels a linear axis at multiples of 1, 2, 2.5 or 5 x 10^k,
// the widest such step that still gives minLabels labels within the axis
// range, with unlabelled minor ticks between.
type linearTicks struct{}

var _ plot.Ticker = linearTicks{}

// maxTicks bounds the ticks of one axis: an axis range that would need
// more (a span near MaxFloat64, or a range so far from zero that float64
// cannot count its minor steps) gets ticks at its two ends only, so that
// extreme values never make the tick code loop or grow without end.
const maxTicks = 1000

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(min, max float64) []plot.Tick {
	if math.IsNaN(min) || math.IsNaN(max) || math.IsInf(min, 0) || math.IsInf(max, 0) {
		return nil
	}
	if max <= min {
		return []plot.Tick{{Value: min, Label: tickLabel(min, 0)}}
	}
	span := max - min
	if math.IsInf(span, 0) || span <= 0 {
		return endTicks(min, max)
	}
	step, digits := labelStep(span)
	// each smaller step at least halves the step, so a handful of rounds
	// reaches minLabels; the bound keeps a degenerate range from looping
	for round := 0; countMultiples(min, max, step) < minLabels; round++ {
		if round == 8 {
			return endTicks(min, max)
		}
		step, digits = smallerStep(step, digits)
	}
	minor := step / 5
	if m := mantissa(step); m == 2 || m == 2.5 {
		minor = step / 2
	}
	top := max + math.Abs(max)*1e-12
	if math.IsInf(top, 0) {
		top = max
	}
	first, last := math.Ceil(min/minor-1e-9), math.Floor(top/minor)
	n := last - first + 1
	// first + k must be exact for every k counted: beyond 2^53 it is not
	if !(n >= 1 && n <= maxTicks) || math.Abs(first)+n > 1<<53 {
		return endTicks(min, max)
	}
	ticks := make([]plot.Tick, 0, int(n))
	for k := 0; k < int(n); k++ {
		v := (first + float64(k)) * minor
		lab := ""
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			v = math.Round(r) * step
			lab = tickLabel(v, digits)
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: lab})
	}
	return ticks
}

// endTicks labels only the two ends of a range too extreme for regular
// steps, in the shortest form that reads back as each value.
func endTicks(min, max float64) []plot.Tick {
	return []plot.Tick{
		{Value: min, Label: strconv.FormatFloat(min, 'g', 4, 64)},
		{Value: max, Label: strconv.FormatFloat(max, 'g', 4, 64)},
	}
}

// labelStep is the largest 1, 2, 2.5, 5 x 10^k step not above span, and the
// decimals its labels need.
func labelStep(span float64) (float64, int) {
	k := math.Floor(math.Log10(span))
	step := math.Pow(10, k)
	digits := int(math.Max(0, -k))
	for _, m := range []float64{5, 2.5, 2} {
		if m*step <= span {
			d := digits
			if m == 2.5 && k <= 0 {
				d++
			}
			return m * step, d
		}
	}
	return step, digits
}

// smallerStep is the next step of the 1, 2, 2.5, 5 sequence below step.
func smallerStep(step float64, digits int) (float64, int) {
	k := math.Floor(math.Log10(step) + 1e-9)
	p := math.Pow(10, k)
	switch m := mantissa(step); {
	case m >= 5:
		d := int(math.Max(0, -k))
		if k <= 0 {
			d++ // 2.5 x 10^k needs one more decimal
		}
		return 2.5 * p, d
	case m >= 2.5:
		return 2 * p, int(math.Max(0, -k))
	case m >= 2:
		return p, int(math.Max(0, -k))
	}
	return 0.5 * p, int(math.Max(0, 1-k))
}

// mantissa is step / 10^floor(log10 step), rounded: 1, 2, 2.5 or 5.
func mantissa(step float64) float64 {
	k := math.Floor(math.Log10(step) + 1e-9)
	return math.Round(step/math.Pow(10, k)*10) / 10
}

func countMultiples(min, max, step float64) int {
	return int(math.Floor(max/step+1e-9) - math.Ceil(min/step-1e-9) + 1)
}

func tickLabel(v float64, digits int) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'f', digits, 64)
}

// logTicks labels a log axis at each decade; when that gives fewer than
// minLabels labels within the range, also at 2 and 5 times each decade,
// and then at every integer multiple. Minor ticks mark 2..9 x 10^k.
type logTicks struct{}

var _ plot.Ticker = logTicks{}

// Ticks implements plot.Ticker. min and max must be positive (see
// useLogX, which falls back to a linear axis otherwise); a range that is
// not gets no ticks rather than a panic.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	// v beyond MaxFloat64 is +Inf, no tick (max*(1+1e-9) may be +Inf too)
	in := func(v float64) bool { return !math.IsInf(v, 0) && v >= min*(1-1e-9) && v <= max*(1+1e-9) }
	count := func(ms []float64) int {
		n := 0
		for k := lo; k <= hi; k++ {
			for _, m := range ms {
				if in(m * math.Pow(10, k)) {
					n++
				}
			}
		}
		return n
	}
	labelled := []float64{1}
	for _, ms := range [][]float64{{1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		if count(labelled) >= minLabels {
			break
		}
		labelled = ms
	}
	var ticks []plot.Tick
	for k := lo; k <= hi; k++ {
		for m := 1.0; m <= 9; m++ {
			v := m * math.Pow(10, k)
			if !in(v) {
				continue
			}
			t := plot.Tick{Value: v}
			for _, l := range labelled {
				if l == m {
					t.Label = strconv.FormatFloat(v, 'g', 12, 64)
				}
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// useLogX puts p's X axis on a log scale when every value of xs is
// positive. Otherwise a log axis cannot show them: the axis stays linear
// and the returned note says why (shown under the axis label), so that a
// chart is always drawn and never panics.
func useLogX(p *plot.Plot, xs []float64) (note string) {
	for _, x := range xs {
		if !(x > 0) {
			note = "linear axis: values <= 0 have no log"
			p.X.Label.Text += " (" + note + ")"
			return note
		}
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
	return ""
}

// fitTitle breaks p's title into lines at spaces so that no line is wider
// than width: a title wider than its plot would be cut at both ends.
func fitTitle(p *plot.Plot, width vg.Length) {
	p.Title.Text = wrapText(p.Title.Text, p.Title.TextStyle, width)
}

// wrapText breaks s at spaces into lines no wider than width in sty (a
// word wider than width gets a line of its own).
func wrapText(s string, sty text.Style, width vg.Length) string {
	if s == "" || sty.Width(s) <= width {
		return s
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && sty.Width(line+" "+w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line == "" {
			line = w
		} else {
			line += " " + w
		}
	}
	return strings.Join(append(lines, line), "\n")
}
