package reports_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/reports"
	"placesim/study"
)

var figuresDir = flag.String("figures", "", "also write the test figures into this directory, to look at them")

// TestFiguresRender renders every chart kind to PNG and SVG: each PNG must
// decode to the figure's pixel size with more than one colour, each SVG
// must be a well-formed XML document of the figure's size in points.
func TestFiguresRender(t *testing.T) {
	t.Parallel()
	rows, c := fixture(t, false) // with placement times
	detail := tracedBest(t, rows, c)
	reproRows, _ := fixture(t, true)
	gantt, err := reports.Gantt(detail, c)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := reports.MemoryTimeline(detail, c)
	if err != nil {
		t.Fatal(err)
	}
	figs := []struct {
		name string
		fig  *reports.Figure
	}{
		{"step time", reports.StepTimeChart(rows)},
		{"place time", reports.PlaceTimeChart(rows)},
		{"place time not measured", reports.PlaceTimeChart(reproRows)},
		{"peak memory", reports.PeakMemoryChart(rows)},
		{"peak memory, nothing simulated", reports.PeakMemoryChart(rows[len(rows)-1:])},
		{"step time, empty", reports.StepTimeChart(nil)},
		{"gantt", gantt},
		{"memory timeline", mem},
	}
	for _, tc := range figs {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.fig
			wantW, wantH := f.PixelSize()
			if wantW < 100 || wantH < 100 {
				t.Fatalf("figure %s is %dx%d pixels", f.Name, wantW, wantH)
			}
			pngData, err := f.Render(reports.PNG)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(pngData))
			if err != nil {
				t.Fatalf("PNG does not decode: %v", err)
			}
			if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH {
				t.Fatalf("PNG is %dx%d, want %dx%d", b.Dx(), b.Dy(), wantW, wantH)
			}
			colours := map[[4]uint32]bool{}
			for y := 0; y < wantH && len(colours) < 3; y += 3 {
				for x := 0; x < wantW; x += 3 {
					r, g, b, a := img.At(x, y).RGBA()
					colours[[4]uint32{r, g, b, a}] = true
				}
			}
			if len(colours) < 3 {
				t.Fatalf("PNG is blank (%d colours)", len(colours))
			}
			svgData, err := f.Render(reports.SVG)
			if err != nil {
				t.Fatal(err)
			}
			var root struct {
				XMLName xml.Name
				Width   string `xml:"width,attr"`
				Height  string `xml:"height,attr"`
			}
			if err := xml.Unmarshal(svgData, &root); err != nil || root.XMLName.Local != "svg" {
				t.Fatalf("SVG is not a well-formed <svg> document: %v", err)
			}
			if !strings.HasSuffix(root.Width, "pt") || !strings.Contains(string(svgData), "<text") {
				t.Fatalf("SVG size %s x %s, or no text", root.Width, root.Height)
			}
			if _, err := f.Render("gif"); err == nil {
				t.Fatal("no error for an unknown image format")
			}
			if *figuresDir != "" {
				name := strings.ReplaceAll(tc.name, " ", "_")
				name = strings.ReplaceAll(name, ",", "")
				for ext, data := range map[string][]byte{".png": pngData, ".svg": svgData} {
					if err := os.WriteFile(filepath.Join(*figuresDir, name+ext), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// TestTimelinesNeedATrace checks the errors for a run that cannot be
// charted as a timeline.
func TestTimelinesNeedATrace(t *testing.T) {
	t.Parallel()
	rows, c := fixture(t, true)
	for _, o := range rows {
		if _, err := reports.Gantt(o, c); err == nil {
			t.Errorf("%s: Gantt of an untraced run gave no error", o.Placer)
		}
		if _, err := reports.MemoryTimeline(o, c); err == nil {
			t.Errorf("%s: memory timeline of an untraced run gave no error", o.Placer)
		}
	}
	var failed *study.Record
	for _, o := range rows {
		if o.Error != "" {
			failed = o
		}
	}
	if err := study.Retrace(failed, c); err == nil || !strings.Contains(err.Error(), failed.Placer) {
		t.Fatalf("retrace of a failed run: %v", err)
	}
}
