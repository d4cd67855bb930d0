package reports

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"placesim/devices"

	"placesim/runresult"
)

// DirOptions say what WriteDir details besides the comparison.
type DirOptions struct {
	// Cluster the runs used; needed for the detailed run's charts.
	Cluster *devices.Cluster
	// Detail is the run charted as a Gantt chart, memory timelines and a
	// Chrome trace; it must carry a trace (study.Retrace). Nil: none.
	Detail *runresult.Record
	// DetailNote explains in report.html why there is no detailed run.
	DetailNote string
	// OnFile, when set, is called after each file is in place.
	OnFile func(path string)
	// Cancelled, when set, is asked before each file; a non-nil error
	// stops WriteDir with that error (an interrupted command).
	Cancelled func() error
	// Results, when set, is results.json as the caller encodes it (the
	// one versioned results schema of package study, which check reads);
	// nil: the rows as JSON writes them.
	Results []byte
	// Stamp, when set, captions every chart and report.html: placesim's
	// version, the command and the date (study.Stamp).
	Stamp string
	// Timings, when set, is written as results.timings.json (wall-clock
	// measurements kept out of results.json, so that it is deterministic).
	Timings []byte
}

// Figures returns every chart of a comparison: step time, placement time
// and peak memory per placer, then, when detail is set, its Gantt chart
// and memory timelines.
func Figures(rows []*runresult.Record, detail *runresult.Record, c *devices.Cluster) ([]*Figure, error) {
	figs := []*Figure{StepTimeChart(rows), PlaceTimeChart(rows), PeakMemoryChart(rows)}
	if detail == nil {
		return figs, nil
	}
	if c == nil {
		return nil, fmt.Errorf("charts of the %s run: no cluster given", detail.Placer)
	}
	g, err := Gantt(detail, c)
	if err != nil {
		return nil, err
	}
	m, err := MemoryTimeline(detail, c)
	if err != nil {
		return nil, err
	}
	return append(figs, g, m), nil
}

// WriteDir writes a comparison's outputs into dir, creating it:
// results.json (and results.timings.json with opt.Timings), results.csv, table.txt, each figure as PNG and SVG,
// trace.json (with a detailed run) and report.html, last. Every file is
// written with WriteFileAtomic, so a run killed midway leaves only whole
// files (and hidden temporary files, which the next WriteDir or PrepareDir
// removes). It returns the paths written, in order.
func WriteDir(dir string, rows []*runresult.Record, opt DirOptions) ([]string, error) {
	if err := PrepareDir(dir); err != nil {
		return nil, err
	}
	var written []string
	put := func(name string, data []byte) error {
		if opt.Cancelled != nil {
			if err := opt.Cancelled(); err != nil {
				return err
			}
		}
		path := filepath.Join(dir, name)
		if err := WriteFileAtomic(path, data); err != nil {
			return err
		}
		written = append(written, path)
		if opt.OnFile != nil {
			opt.OnFile(path)
		}
		return nil
	}
	gen := func(name string, f func(io.Writer) error) error {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return put(name, b.Bytes())
	}
	if opt.Results != nil {
		if err := put("results.json", opt.Results); err != nil {
			return written, err
		}
	} else if err := gen("results.json", func(w io.Writer) error { return JSON(w, rows) }); err != nil {
		return written, err
	}
	if opt.Timings != nil {
		if err := put("results.timings.json", opt.Timings); err != nil {
			return written, err
		}
	}
	if err := gen("results.csv", func(w io.Writer) error { return CSV(w, rows) }); err != nil {
		return written, err
	}
	if err := gen("table.txt", func(w io.Writer) error { return TableText(w, rows) }); err != nil {
		return written, err
	}
	figs, err := Figures(rows, opt.Detail, opt.Cluster)
	if err != nil {
		return written, err
	}
	var svgs []HTMLFigure
	for _, f := range figs {
		f.Caption = opt.Stamp
		for _, format := range []string{PNG, SVG} {
			data, err := f.Render(format)
			if err != nil {
				return written, err
			}
			if err := put(f.Name+"."+format, data); err != nil {
				return written, err
			}
			if format == SVG {
				svgs = append(svgs, HTMLFigure{Name: f.Name, Title: f.Title, SVG: data})
			}
		}
	}
	if opt.Detail != nil {
		if err := gen("trace.json", func(w io.Writer) error { return ChromeTrace(w, opt.Detail, opt.Cluster) }); err != nil {
			return written, err
		}
	}
	rep := HTMLReport{Rows: rows, Detail: opt.Detail, DetailNote: opt.DetailNote, Figures: svgs, Stamp: opt.Stamp}
	if err := gen("report.html", func(w io.Writer) error { return HTML(w, rep) }); err != nil {
		return written, err
	}
	return written, nil
}
