package reports

import "fmt"

// Limits of what one results folder charts (issue 31: a merge of 400,000
// records drew for 105 s into a 209 MB SVG and a chart per comparison
// made thousands of files). The tables and results.json keep every
// record; the charts are views and say when they show a part.
const (
	// MaxChartPoints bounds the points drawn in one chart: a line chart
	// 12 cm wide has no more than a few hundred distinct x positions per
	// line, so 20,000 points over all lines lose nothing a reader sees.
	MaxChartPoints = 20_000
	// MaxChartLines bounds the lines (and legend entries) of one chart.
	MaxChartLines = 64
	// MaxFigures bounds the charts one command writes.
	MaxFigures = 100
)

// ThinSweep returns series with at most MaxChartLines lines and
// MaxChartPoints points in all: lines beyond MaxChartLines are left out,
// and each line keeps every k-th point (its first and last always). note
// says what was left out ("" when nothing was).
func ThinSweep(series []SweepSeries) (out []SweepSeries, note string) {
	lines := len(series)
	if lines > MaxChartLines {
		series = series[:MaxChartLines]
	}
	total := 0
	for _, s := range series {
		total += len(s.Points)
	}
	if lines <= MaxChartLines && total <= MaxChartPoints {
		return series, ""
	}
	k := (total + MaxChartPoints - 1) / MaxChartPoints
	out = make([]SweepSeries, len(series))
	for i, s := range series {
		out[i].Placer = s.Placer
		for j, pt := range s.Points {
			if j%k == 0 || j == len(s.Points)-1 {
				out[i].Points = append(out[i].Points, pt)
			}
		}
	}
	switch {
	case lines > MaxChartLines && k > 1:
		note = fmt.Sprintf("first %d of %d lines, every %d-th point", MaxChartLines, lines, k)
	case lines > MaxChartLines:
		note = fmt.Sprintf("first %d of %d lines", MaxChartLines, lines)
	default:
		note = fmt.Sprintf("every %d-th point of %d", k, total)
	}
	return out, note
}
