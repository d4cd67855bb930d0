package study

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"placesim/workloads"
	"placesim/workloads/zoo"
)

// partRun is one part of a mix simulated as its own validation row.
type partRun struct {
	res ValidationResult
	o   *Record
	g   *workloads.Graph
	err error
	// bad: the part erred or failed (res.Failure), which stops the parts
	// after it
	bad bool
	// skipped: not simulated, as an earlier part was bad or ctx was done
	skipped bool
}

// mostProbablePart is the index of the first of the parts with the
// greatest weight: the part a mix's row is explained by.
func mostProbablePart(parts []zoo.LengthPart) int {
	best := 0
	for i, p := range parts {
		if p.Weight > parts[best].Weight {
			best = i
		}
	}
	return best
}

// simulateParts simulates the n parts of a mix (simulateLengthMix,
// simulateTokenMix), sim(i) the i-th as its own row (each its own graph
// and engine run), on up to GOMAXPROCS goroutines. The runs come back in
// the parts' order, so what the caller sums over them does not depend on
// the schedule, and end at the first part that errs or fails: such a part
// stops the parts after it, not those before, so the first bad one in
// order is always the one reported. Only part keep's record and graph
// (explain's) and the bad part's are kept. The error is ctx's when it is
// done.
func simulateParts(ctx context.Context, n, keep int, sim func(i int) (ValidationResult, *Record, *workloads.Graph, error)) ([]partRun, error) {
	runs := make([]partRun, n)
	var next, firstBad atomic.Int64
	firstBad.Store(int64(n))
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				run := &runs[i]
				if ctx.Err() != nil || int64(i) > firstBad.Load() {
					run.skipped = true
					continue
				}
				run.res, run.o, run.g, run.err = sim(i)
				if run.bad = run.err != nil || run.res.Failure != ""; run.bad {
					for b := firstBad.Load(); int64(i) < b && !firstBad.CompareAndSwap(b, int64(i)); b = firstBad.Load() {
					}
				} else if i != keep {
					run.o, run.g = nil, nil
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range runs {
		if runs[i].skipped {
			return nil, fmt.Errorf("part %d of %d: not simulated, though no earlier part failed (a bug)", i+1, n)
		}
		if runs[i].bad {
			return runs[:i+1], nil
		}
	}
	return runs, nil
}
