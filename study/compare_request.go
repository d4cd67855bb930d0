package study

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"placesim/devices"
	"placesim/placers"
	"placesim/reports"
)

// CompareRequest is placesim compare: several placers on one workload and
// cluster, optionally written into a directory.
type CompareRequest struct {
	Inputs
	CompareSpec
	// Out, when set, is the directory results, charts, trace.json and
	// report.html are written into (atomically, file by file; nothing is
	// left behind when ctx is cancelled).
	Out string
	// Gantt names the placer whose run the Gantt chart, memory timelines
	// and trace show; "" means the best.
	Gantt string
	// Regimes, when set, runs the comparison once per regime (replacing
	// Base.Regime); every row carries its regime.
	Regimes []Regime
	// AllReduce is the all-reduce flags as given, recorded with the
	// regimes in results.json's scenario (nil: the defaults).
	AllReduce *AllReduceSpec
}

// CompareResult is what CompareFiles returns.
type CompareResult struct {
	Rows []*Record
	// Regimes are the regimes compared in, in request order.
	Regimes []string
	Cluster *devices.Cluster
	// Written lists the files put into Out.
	Written []string
	// Detail is the placer whose timelines were written ("" for none).
	Detail string
	// DetailErr is set when Gantt named a run that failed: the files are
	// written, without timelines, and the command fails with it.
	DetailErr error
	// Warnings are the workload's import warnings
	// (workloads.Graph.Warnings).
	Warnings []string
}

// CompareFiles loads the request's inputs, checks the placer names, runs
// Compare and writes Out. A cancelled ctx ends it at once with ctx's error
// and no file of this run left in Out.
func CompareFiles(ctx context.Context, reg *placers.Registry, req CompareRequest) (*CompareResult, error) {
	g, c, err := req.Load()
	if err != nil {
		return nil, err
	}
	cs := req.CompareSpec
	if len(cs.Placers) == 0 {
		if cs.Placers, err = DefaultPlacers(reg); err != nil {
			return nil, err
		}
	} else {
		for _, n := range cs.Placers {
			if _, err := reg.Entry(n); err != nil {
				return nil, fieldErr("placers", err)
			}
		}
	}
	perPlacer, err := reg.Resolve(cs.Placers, cs.Base.Options)
	if err != nil {
		return nil, fieldErr("placer options", err)
	}
	for _, n := range cs.Placers {
		if _, err := reg.New(n, perPlacer[n]); err != nil {
			return nil, fieldErr("placer options", err)
		}
	}
	if req.Gantt != "" && !slices.Contains(cs.Placers, req.Gantt) {
		return nil, fieldErr("gantt", fmt.Errorf("%q is not among the placers compared (%s)", req.Gantt, strings.Join(cs.Placers, ", ")))
	}
	regimes := req.Regimes
	if len(regimes) == 0 {
		regimes = []Regime{cs.Base.Regime}
	}
	for _, r := range regimes {
		spec := cs.Base
		spec.Regime = r
		if err := spec.Check(g, c); err != nil {
			if len(req.Regimes) > 1 {
				return nil, fmt.Errorf("regime %s: %w", r, err)
			}
			return nil, err
		}
	}
	if req.Out != "" {
		if err := ClaimDir(req.Out, "compare"); err != nil {
			return nil, err
		}
		if err := reports.PrepareDir(req.Out); err != nil {
			return nil, err
		}
	}
	res := &CompareResult{Cluster: c, Warnings: g.Warnings}
	done, total := 0, len(regimes)*len(cs.Placers)
	progress := cs.Progress
	for _, r := range regimes {
		rs := cs
		rs.Base.Regime = r
		if progress != nil {
			rs.Progress = func(p Progress) {
				done++
				p.Done, p.Total = done, total
				progress(p)
			}
		}
		rows, err := Compare(ctx, reg, g, c, rs)
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, rows...)
		res.Regimes = append(res.Regimes, r.String())
	}
	if err := allFailed(res.Rows); err != nil {
		return nil, err
	}
	if req.Out == "" {
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sc, err := req.CompareScenario(reg, cs.Placers, regimes)
	if err != nil {
		return nil, err
	}
	stamp := NewStamp("compare")
	if cs.Base.Reproducible {
		stamp.Date = ""
	}
	results, timings, err := encodeCompareResults(sc, reg, res.Rows, stamp)
	if err != nil {
		return nil, err
	}
	if err := writeCompareDir(ctx, req, res, results, timings, stamp.String()); err != nil {
		for _, p := range res.Written {
			os.Remove(p)
		}
		reports.CleanTemp(req.Out)
		return nil, err
	}
	return res, nil
}

// writeCompareDir writes Out. The comparison runs without traces; the run
// it details (the best, or Gantt's) is simulated again with one. A ctx
// cancelled midway stops it between files with ctx's error.
func writeCompareDir(ctx context.Context, req CompareRequest, res *CompareResult, results, timings []byte, stamp string) error {
	opt := reports.DirOptions{Cluster: res.Cluster, Results: results, Timings: timings, Stamp: stamp}
	detail := Best(res.Rows)
	if req.Gantt != "" {
		detail = nil
		for _, o := range res.Rows {
			if o.Placer == req.Gantt && o.Error == "" && o.Plan != nil {
				detail = o
			} else if o.Placer == req.Gantt {
				res.DetailErr = fieldErr("gantt", fmt.Errorf("%s: the run failed, so it has no timelines: %s", o.Placer, o.Error))
				opt.DetailNote = "No Gantt chart, memory timelines or trace: " + res.DetailErr.Error()
			}
		}
	}
	if detail == nil && opt.DetailNote == "" {
		opt.DetailNote = "No Gantt chart, memory timelines or trace: no placer's run was simulated."
	}
	if detail != nil {
		if _, err := awaitCtx(ctx, func() (struct{}, error) { return struct{}{}, Retrace(detail, res.Cluster) }); err != nil {
			return err
		}
		res.Detail = detail.Placer
	}
	opt.Detail = detail
	var cancelled error
	opt.OnFile = func(path string) {
		res.Written = append(res.Written, path)
	}
	opt.Cancelled = func() error {
		cancelled = ctx.Err()
		return cancelled
	}
	_, err := reports.WriteDir(req.Out, res.Rows, opt)
	if cancelled != nil {
		return cancelled
	}
	return err
}

// allFailed returns an error when no row was simulated: every placer
// failed, so the comparison has nothing to show.
func allFailed(rows []*Record) error {
	for _, o := range rows {
		if o.Error == "" {
			return nil
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return fmt.Errorf("every placer failed (%d runs), e.g. %s: %s", len(rows), rows[0].Placer, rows[0].Error)
}
