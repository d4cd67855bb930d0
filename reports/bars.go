package reports

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// hbar is one horizontal bar from From to To (data units) centred on Y,
// with an optional label written just right of its end.
type hbar struct {
	Y, From, To float64
	// Thick is the bar's height in Y units (lanes are 1 apart).
	Thick float64
	Fill  color.Color
	Hatch bool
	Label string
}

// hbars is a plot.Plotter drawing horizontal bars: bar charts (placers on
// the Y axis), grouped bars and Gantt lanes. A bar whose From is at or
// below the X axis minimum starts at the axis, which makes bars work on a
// log scale.
type hbars struct {
	bars  []hbar
	label text.Style
}

var (
	_ plot.Plotter     = (*hbars)(nil)
	_ plot.DataRanger  = (*hbars)(nil)
	_ plot.GlyphBoxer  = (*hbars)(nil)
	_ plot.Thumbnailer = swatch{}
)

func newHBars(bars []hbar) *hbars {
	sty := plot.New().Legend.TextStyle
	sty.Font.Size = 9
	sty.Font.Variant = sansFont
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	return &hbars{bars: bars, label: sty}
}

// Plot implements plot.Plotter.
func (b *hbars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	xmin, xmax := plt.X.Min, plt.X.Max
	for _, r := range b.bars {
		from, to := math.Max(r.From, xmin), math.Min(r.To, xmax)
		var x0, x1 vg.Length
		if to >= from {
			x0, x1 = trX(from), trX(to)
			if x1-x0 < 0.5 { // keep very short ops visible
				x1 = x0 + 0.5
			}
			rect := vg.Rectangle{
				Min: vg.Point{X: x0, Y: trY(r.Y - r.Thick/2)},
				Max: vg.Point{X: x1, Y: trY(r.Y + r.Thick/2)},
			}
			if r.Fill != nil {
				fillRect(c, rect, r.Fill, r.Hatch)
			}
		} else {
			x1 = trX(xmin)
		}
		if r.Label != "" {
			c.FillText(b.label, vg.Point{X: x1 + 4, Y: trY(r.Y)}, r.Label)
		}
	}
}

// DataRange implements plot.DataRanger.
func (b *hbars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, r := range b.bars {
		xmin = math.Min(xmin, math.Min(r.From, r.To))
		xmax = math.Max(xmax, r.To)
		ymin = math.Min(ymin, r.Y-r.Thick/2)
		ymax = math.Max(ymax, r.Y+r.Thick/2)
	}
	return xmin, xmax, ymin, ymax
}

// GlyphBoxes implements plot.GlyphBoxer: it reserves room right of each
// label so that labels at the longest bar's end stay inside the image.
func (b *hbars) GlyphBoxes(plt *plot.Plot) []plot.GlyphBox {
	var boxes []plot.GlyphBox
	for _, r := range b.bars {
		if r.Label == "" {
			continue
		}
		w := b.label.Width(r.Label) + 4
		boxes = append(boxes, plot.GlyphBox{
			X:         plt.X.Norm(math.Min(math.Max(r.To, plt.X.Min), plt.X.Max)),
			Y:         plt.Y.Norm(r.Y),
			Rectangle: vg.Rectangle{Min: vg.Point{X: 0, Y: -4}, Max: vg.Point{X: w, Y: 4}},
		})
	}
	return boxes
}

// vline is a plot.Plotter drawing a vertical line at X across the plot,
// for capacities.
type vline struct {
	X     float64
	Style draw.LineStyle
}

// Plot implements plot.Plotter.
func (l vline) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	x := trX(l.X)
	c.StrokeLine2(l.Style, x, c.Min.Y, x, c.Max.Y)
}

// DataRange implements plot.DataRanger.
func (l vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return l.X, l.X, math.Inf(1), math.Inf(-1)
}

// hline is a plot.Plotter drawing a horizontal line at Y across the plot,
// for capacities.
type hline struct {
	Y     float64
	Style draw.LineStyle
}

// Plot implements plot.Plotter.
func (l hline) Plot(c draw.Canvas, plt *plot.Plot) {
	_, trY := plt.Transforms(&c)
	y := trY(l.Y)
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}

// DataRange implements plot.DataRanger.
func (l hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), l.Y, l.Y
}
