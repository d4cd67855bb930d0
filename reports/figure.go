package reports

import (
	"bytes"
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// DPI is the resolution of the PNG renderings.
const DPI = 96

// Image formats a Figure renders to.
const (
	PNG = "png"
	SVG = "svg"
)

// Figure is a chart ready to render: its file stem, a title for the HTML
// report, its size, and how to draw it on a canvas of that size.
type Figure struct {
	// Name is the file stem, e.g. "step_time" (step_time.png, .svg).
	Name string
	// Title is the caption in report.html.
	Title string
	// Width and Height of the image (PNG pixels = size in inches x DPI).
	Width, Height vg.Length
	// Caption, when set, is drawn small at the image's bottom right: the
	// stamp of the results it charts (placesim's version, the command,
	// the date), so that a chart pasted into a paper says where it came
	// from.
	Caption string
	draw    func(c draw.Canvas)
}

// PixelSize is the size in pixels of the figure's PNG rendering.
func (f *Figure) PixelSize() (w, h int) {
	return int(f.Width/vg.Inch*DPI + 0.5), int(f.Height/vg.Inch*DPI + 0.5)
}

// Render draws the figure as a PNG or SVG document.
func (f *Figure) Render(format string) ([]byte, error) {
	var buf bytes.Buffer
	switch format {
	case PNG:
		c := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(color.White))
		f.drawAll(draw.New(c))
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("render %s.png: %w", f.Name, err)
		}
	case SVG:
		c := vgsvg.New(f.Width, f.Height)
		dc := draw.New(c)
		// a white background, as in the PNG (SVG is transparent otherwise)
		dc.FillPolygon(color.White, rectPts(dc.Rectangle))
		f.drawAll(dc)
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("render %s.svg: %w", f.Name, err)
		}
		// fonts are not embedded: name fallbacks with metrics close to
		// Liberation Sans for viewers that lack it
		return bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"),
			[]byte("font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;")), nil
	default:
		return nil, fmt.Errorf("render %s: image format %q (valid: %s, %s)", f.Name, format, PNG, SVG)
	}
	return buf.Bytes(), nil
}

// drawAll draws the figure and its caption.
func (f *Figure) drawAll(c draw.Canvas) {
	f.draw(c)
	if f.Caption == "" {
		return
	}
	sty := newPlot("").X.Tick.Label
	sty.Font.Size = 7
	sty.Color = color.Gray{Y: 110}
	sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
	c.FillText(sty, vg.Point{X: c.Max.X - 2, Y: c.Min.Y + 1}, f.Caption)
}

// plotFigure wraps a single plot, with an optional legend drawn in a strip
// to the right of it (so that it never hides data).
func plotFigure(name, title string, w, h vg.Length, p *plot.Plot, legend *plot.Legend) *Figure {
	return &Figure{Name: name, Title: title, Width: w, Height: h, draw: func(c draw.Canvas) {
		c = draw.Crop(c, margin, -margin, margin, -margin)
		if legend == nil {
			fitTitle(p, c.Max.X-c.Min.X)
			p.Draw(c)
			return
		}
		lw := legend.Rectangle(c).Max.X - legend.Rectangle(c).Min.X + 12
		pc := draw.Crop(c, 0, -lw, 0, 0)
		fitTitle(p, pc.Max.X-pc.Min.X)
		p.Draw(pc)
		lc := draw.Crop(c, c.Max.X-c.Min.X-lw+6, 0, 0, -p.Title.Padding-28)
		legend.Draw(lc)
	}}
}

// messageFigure is a figure that says why there is nothing to chart.
func messageFigure(name, title, msg string) *Figure {
	return &Figure{Name: name, Title: title, Width: 6 * vg.Inch, Height: 1.5 * vg.Inch, draw: func(c draw.Canvas) {
		sty := newPlot("").Title.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
		c.FillText(sty, c.Center(), wrapText(msg, sty, c.Max.X-c.Min.X-2*margin))
	}}
}

// margin is the blank border around a figure.
const margin = 8

// sansFont is the report's typeface variant (Liberation Sans).
const sansFont = "Sans"

// newPlot returns a plot with the report's common style: sans-serif text
// in a few sizes.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Variant = sansFont
	}
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 13
	p.Title.Padding = 6
	p.X.Label.TextStyle.Font.Size = 11
	p.Y.Label.TextStyle.Font.Size = 11
	p.X.Tick.Label.Font.Size = 9.5
	p.Y.Tick.Label.Font.Size = 9.5
	p.Legend.TextStyle.Font.Size = 9.5
	p.X.Tick.Marker, p.Y.Tick.Marker = linearTicks{}, linearTicks{}
	return p
}

// newLegend returns a legend with the report's common style, its entries
// listed top-down at the right.
func newLegend() *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = 9.5
	l.TextStyle.Font.Variant = sansFont
	l.Top, l.Left = true, true
	l.Padding = 2
	return &l
}

func rectPts(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
}

// swatch is a legend thumbnail: a filled box, optionally hatched.
type swatch struct {
	fill  color.Color
	hatch bool
	line  *draw.LineStyle // when set, a line instead of a box
}

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	if s.line != nil {
		y := (c.Min.Y + c.Max.Y) / 2
		c.StrokeLine2(*s.line, c.Min.X, y, c.Max.X, y)
		return
	}
	r := c.Rectangle
	r.Min.Y += 1
	r.Max.Y -= 1
	fillRect(*c, r, s.fill, s.hatch)
}

// fillRect fills r with clr, outlines it and, if hatch is set, draws
// diagonal lines across it (the mark of a failed run).
func fillRect(c draw.Canvas, r vg.Rectangle, clr color.Color, hatch bool) {
	c.FillPolygon(clr, rectPts(r))
	if !hatch {
		return
	}
	sty := draw.LineStyle{Color: color.Black, Width: 0.6}
	w, h := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	const step = 5
	// a bar drawn from an extreme value may reach far beyond the canvas:
	// hatch only what a page can show (10 m), never a loop of 10^300 lines
	if !(w >= 0 && h >= 0 && w+h < 10000*vg.Centimeter) {
		w, h = 0, 0
	}
	for s := -h; s < w; s += step {
		// the 45-degree line x = Min.X + s + (y - Min.Y), clipped to r
		x0, y0 := r.Min.X+s, r.Min.Y
		x1, y1 := x0+h, r.Max.Y
		if x0 < r.Min.X {
			y0 += r.Min.X - x0
			x0 = r.Min.X
		}
		if x1 > r.Max.X {
			y1 -= x1 - r.Max.X
			x1 = r.Max.X
		}
		c.StrokeLine2(sty, x0, y0, x1, y1)
	}
	c.StrokeLines(draw.LineStyle{Color: color.Black, Width: 0.6}, append(rectPts(r), r.Min))
}
