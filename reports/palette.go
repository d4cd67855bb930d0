package reports

import (
	"image/color"
	"math"
)

// tableau10 is the Tableau 10 qualitative palette: distinct hues that stay
// apart for the colour-blind and in print.
var tableau10 = [...]color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, // blue
	{0xf2, 0x8e, 0x2b, 0xff}, // orange
	{0x59, 0xa1, 0x4f, 0xff}, // green
	{0xb0, 0x7a, 0xa1, 0xff}, // purple
	{0x76, 0xb7, 0xb2, 0xff}, // teal
	{0xed, 0xc9, 0x48, 0xff}, // yellow
	{0xff, 0x9d, 0xa7, 0xff}, // pink
	{0x9c, 0x75, 0x5f, 0xff}, // brown
	{0xe1, 0x57, 0x59, 0xff}, // red
	{0xba, 0xb0, 0xac, 0xff}, // grey
}

// Colours with a fixed meaning across the charts.
var (
	colourOK       = tableau10[0]
	colourOOM      = tableau10[8]
	colourOther    = tableau10[9]
	colourTransfer = color.RGBA{0x5f, 0x6b, 0x7a, 0xff}
	colourCapacity = color.RGBA{0xc0, 0x20, 0x20, 0xff}
)

// deviceColour is device i's colour in memory charts.
func deviceColour(i int) color.RGBA { return tableau10[i%len(tableau10)] }

// mix blends c towards t by f in [0, 1].
func mix(c, t color.RGBA, f float64) color.RGBA {
	m := func(a, b uint8) uint8 { return uint8(math.Round(float64(a) + f*(float64(b)-float64(a)))) }
	return color.RGBA{m(c.R, t.R), m(c.G, t.G), m(c.B, t.B), 0xff}
}

var (
	white = color.RGBA{0xff, 0xff, 0xff, 0xff}
	black = color.RGBA{0, 0, 0, 0xff}
)
