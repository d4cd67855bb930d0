package reports

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"regexp"

	"placesim/internal/units"

	"placesim/runresult"
)

//go:embed templates/report.html.tmpl
var reportTemplate string

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	// numeric says whether summary column i holds a number
	"numeric": func(i int) bool { return i != 1 && i != 7 },
}).Parse(reportTemplate))

// svgProlog matches what precedes the <svg> element of a rendered SVG
// (the XML declaration and a comment), which has no place inside HTML.
var svgProlog = regexp.MustCompile(`(?s)^.*?(<svg[\s>])`)

// HTMLFigure is a rendered SVG chart for the HTML report.
type HTMLFigure struct {
	Name, Title string
	// SVG is the document as rendered by Figure.Render(SVG).
	SVG []byte
}

// HTMLReport is what report.html shows.
type HTMLReport struct {
	Rows []*runresult.Record
	// Detail is the run whose timelines the figures show (nil: none).
	Detail *runresult.Record
	// DetailNote explains a missing detail run, if any.
	DetailNote string
	Figures    []HTMLFigure
	// Stamp, when set, says which placesim wrote the report, with which
	// command and when.
	Stamp string
}

type htmlRow struct {
	Cells []string
	Class string
}

// HTML writes a single self-contained HTML page: the comparison table with
// OOM and failed rows marked, the error messages, the per-device peak
// memory table, every figure as inline SVG and the detailed run's link
// traffic. It loads nothing from elsewhere.
func HTML(w io.Writer, r HTMLReport) error {
	rows := sorted(r.Rows)
	cells, notes := summary(rows)
	d := struct {
		Title, Workload, Cluster, Detail, DetailNote, Stamp string
		Seed                                                uint64
		Header, MemHeader, LinkHeader                       []string
		Rows                                                []htmlRow
		Notes                                               []string
		MemRows, Links                                      [][]string
		Figures                                             []struct {
			Name, Title string
			SVG         template.HTML
		}
	}{Header: summaryHeader, Notes: notes, DetailNote: r.DetailNote,
		LinkHeader: []string{"link", "kind", "bytes", "transfers", "busy", "queue delay"}}
	if len(rows) > 0 {
		d.Workload, d.Cluster, d.Seed = rows[0].Workload, rows[0].Cluster, rows[0].Seed
	}
	d.Title = fmt.Sprintf("placesim compare: %s on %s", d.Workload, d.Cluster)
	d.Stamp = r.Stamp
	for i, o := range rows {
		class := ""
		switch {
		case o.Error != "":
			class = "error"
		case o.OOM != nil:
			class = "oom"
		}
		d.Rows = append(d.Rows, htmlRow{Cells: cells[i], Class: class})
	}
	d.MemHeader = []string{"placer"}
	if ref := reference(rows); ref != nil {
		for i := range ref.PeakMemory {
			d.MemHeader = append(d.MemHeader, fmt.Sprintf("%s (%s)", deviceName(ref, i), units.Bytes(ref.Capacity[i])))
		}
		for _, o := range rows {
			row := []string{o.Placer}
			for i := range ref.PeakMemory {
				row = append(row, peakCell(o, i))
			}
			d.MemRows = append(d.MemRows, row)
		}
	}
	if r.Detail != nil {
		d.Detail = r.Detail.Placer
		for _, l := range resultOf(r.Detail).Links {
			d.Links = append(d.Links, []string{l.From + " → " + l.To, l.Kind, units.Bytes(l.Bytes), fmt.Sprint(l.Transfers),
				units.Seconds(l.Busy), units.Seconds(l.QueueDelay)})
		}
	}
	for _, f := range r.Figures {
		svg := svgProlog.ReplaceAll(f.SVG, []byte("$1"))
		if !bytes.HasPrefix(svg, []byte("<svg")) {
			return fmt.Errorf("html report: figure %s is not an SVG document", f.Name)
		}
		d.Figures = append(d.Figures, struct {
			Name, Title string
			SVG         template.HTML
		}{f.Name, f.Title, template.HTML(svg)}) // #nosec: our own renderer's output
	}
	if err := reportTmpl.Execute(w, d); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}
