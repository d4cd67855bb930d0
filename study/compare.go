package study

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/reports"
	"placesim/workloads"
)

// CompareSpec is a comparison of placers on one workload and cluster.
type CompareSpec struct {
	// Placers to run; empty means DefaultPlacers (every registered placer
	// that needs no options). A name may appear once.
	Placers []string
	// Base is copied into each run's Spec (seed, estimates, options,
	// trace, reproducible).
	Base Spec
	// Workers bounds how many placers run at once; <= 0 means
	// runtime.GOMAXPROCS(0). Placement times are wall-clock, so runs that
	// share the cores with others measure slower; use 1 for timings.
	Workers int
	// Timeout bounds each run (placement and simulation); 0 means none. A
	// run that overruns is a row with the error "timed out after D" and,
	// unless Base.Reproducible, D as its PlaceTime (a lower bound).
	Timeout time.Duration
	// Progress, when set, is called once per finished run, in completion
	// order, never concurrently with itself.
	Progress func(Progress)
	// Start, when set, is called as each run starts, with its placer
	// and regime, never concurrently with itself or Progress (a progress
	// line names what is running and for how long).
	Start func(placer, regime string)
}

// Progress reports one finished run of a comparison.
type Progress struct {
	// Done runs out of Total, this one included.
	Done, Total int
	// Record is the run that just finished (its Error says whether it
	// failed).
	Record *Record
}

// DefaultPlacers lists the registered placers that need no options: those
// whose factory accepts empty options. A factory that fails with
// placers.ErrBadOption needs options and is left out; any other failure is
// an error.
func DefaultPlacers(reg *placers.Registry) ([]string, error) {
	var names []string
	for _, n := range reg.Names() {
		_, err := reg.New(n, nil)
		switch {
		case err == nil:
			names = append(names, n)
		case errors.Is(err, placers.ErrBadOption):
		default:
			return nil, err
		}
	}
	return names, nil
}

// Compare runs each placer on g and c, in parallel over a bounded pool of
// workers, and returns one outcome per placer sorted by SortOutcomes: the
// order does not depend on the parallelism. A placer that fails, panics or
// overruns cs.Timeout is a row with its error, never a lost run. The
// returned error is for a bad spec (an unknown or repeated placer name) or
// for ctx being cancelled before every run finished.
//
// A placer that ignores its context cannot be stopped: at its timeout its
// row is recorded and the worker moves on, while the abandoned call runs
// to its end in the background.
func Compare(ctx context.Context, reg *placers.Registry, g *workloads.Graph, c *devices.Cluster, cs CompareSpec) ([]*Record, error) {
	names := cs.Placers
	if len(names) == 0 {
		var err error
		if names, err = DefaultPlacers(reg); err != nil {
			return nil, err
		}
	}
	known := map[string]bool{}
	for _, n := range reg.Names() {
		known[n] = true
	}
	seen := map[string]bool{}
	for _, n := range names {
		if !known[n] {
			_, err := reg.New(n, nil) // the registry's error lists the valid names
			return nil, err
		}
		if seen[n] {
			return nil, fmt.Errorf("placer %q is listed twice", n)
		}
		seen[n] = true
	}
	// Base.Options may hold keys for one placer (m-etf.coarsen) or for
	// every placer that declares them (coarsen).
	perPlacer, err := reg.Resolve(names, cs.Base.Options)
	if err != nil {
		return nil, err
	}
	if cs.Timeout < 0 {
		return nil, fmt.Errorf("compare timeout %v is negative (valid: 0 for none, or > 0)", cs.Timeout)
	}
	if cs.Workers > MaxWorkers {
		return nil, fmt.Errorf("workers = %d (valid range: 0 for the number of cores, up to %d)", cs.Workers, MaxWorkers)
	}
	workers := cs.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(names))

	rows := make([]*Record, len(names))
	jobs := make(chan int)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				s := cs.Base
				s.Placer = names[i]
				s.Options = perPlacer[names[i]]
				if cs.Start != nil {
					mu.Lock()
					cs.Start(s.Placer, s.Regime.String())
					mu.Unlock()
				}
				o := runGuarded(ctx, reg, g, c, s, cs.Timeout)
				rows[i] = o
				if cs.Progress != nil {
					mu.Lock()
					done++
					cs.Progress(Progress{Done: done, Total: len(names), Record: o})
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for i := range names {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compare cancelled: %w", err)
	}
	SortOutcomes(rows)
	return rows, nil
}

// runGuarded is Run with a timeout and a recover: it always returns an
// outcome, with Error set on a bad spec, a panic or a timeout.
func runGuarded(ctx context.Context, reg *placers.Registry, g *workloads.Graph, c *devices.Cluster, s Spec, timeout time.Duration) *Record {
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		rctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	ch := make(chan *Record, 1) // buffered: an abandoned run never blocks
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- failedOutcome(g, c, s, fmt.Sprintf("panic: %v", r))
			}
		}()
		o, err := Run(rctx, reg, g, c, s)
		if err != nil {
			o = failedOutcome(g, c, s, err.Error())
		}
		ch <- o
	}()
	// finished maps an error that came of the deadline to a timeout row
	finished := func(o *Record) *Record {
		if o.Error != "" && errors.Is(rctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return timedOut(g, c, s, timeout, o.PlaceTime) // the placer gave up at the deadline
		}
		return o
	}
	select {
	case o := <-ch:
		return finished(o)
	case <-rctx.Done():
		select {
		case o := <-ch: // finished right at the deadline
			return finished(o)
		default:
		}
		if ctx.Err() != nil {
			return failedOutcome(g, c, s, fmt.Sprintf("cancelled: %v", ctx.Err()))
		}
		var pt *float64
		if !s.Reproducible {
			v := timeout.Seconds()
			pt = &v
		}
		return timedOut(g, c, s, timeout, pt)
	}
}

func timedOut(g *workloads.Graph, c *devices.Cluster, s Spec, timeout time.Duration, placeTime *float64) *Record {
	o := failedOutcome(g, c, s, fmt.Sprintf("timed out after %v", timeout))
	o.PlaceTime = placeTime
	return o
}

func failedOutcome(g *workloads.Graph, c *devices.Cluster, s Spec, msg string) *Record {
	return &Record{Point: Point{Placer: s.Placer, Workload: g.Name, Cluster: c.Name, Seed: s.Seed, Regime: s.Regime.String()}, Graph: g, Error: msg}
}

// SortOutcomes orders rows for a comparison: runs that completed within
// memory by step time, then out-of-memory runs by step time, then runs
// that failed with an error; ties by placer name.
func SortOutcomes(rows []*Record) { reports.SortOutcomes(rows) }

// Best returns the row a report details (Gantt chart, memory timelines,
// trace): the fastest run that completed within memory, else the first
// that was simulated (an out-of-memory run), else nil. rows must be sorted
// by SortOutcomes.
func Best(rows []*Record) *Record {
	for _, o := range rows {
		if !o.Failed() && o.Plan != nil {
			return o
		}
	}
	for _, o := range rows {
		if o.Error == "" && o.Plan != nil {
			return o
		}
	}
	return nil
}

// Retrace simulates o's plan again with a full trace (every transfer hop
// and each device's memory timeline) and stores the traced result in
// o.Result. The engine is deterministic, so step time, memory and OOM are
// those of the first simulation; a comparison thus records traces only for
// the run it charts.
func Retrace(o *Record, c *devices.Cluster) error {
	if o.Plan == nil || o.Graph == nil {
		return fmt.Errorf("retrace %s: the run was not simulated (%s)", o.Placer, o.Error)
	}
	if o.Result != nil && o.Result.Trace != nil {
		return nil
	}
	res, err := engine.Simulate(o.Graph, c, o.Plan, engine.Options{Trace: true})
	if err != nil {
		return fmt.Errorf("retrace %s: %w", o.Placer, err)
	}
	o.Result = res
	return nil
}
