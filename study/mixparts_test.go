package study

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"placesim/workloads"
)

// TestSimulateParts: the parts come back in order, cut at the first bad
// part in order even when a later one goes bad first; only the kept
// part's and the bad part's records survive; a done context is the
// error.
func TestSimulateParts(t *testing.T) {
	rec := func() *Record { return &Record{} }
	// part 5 errs at once, part 2 fails (out of memory) later: part 2 is
	// the one reported, and the parts before it are all there
	sim := func(i int) (ValidationResult, *Record, *workloads.Graph, error) {
		switch i {
		case 2:
			time.Sleep(20 * time.Millisecond)
			return ValidationResult{ID: "p2", Failure: "out of memory"}, rec(), &workloads.Graph{}, nil
		case 5:
			return ValidationResult{}, nil, nil, errors.New("part 5")
		}
		return ValidationResult{ID: fmt.Sprint("p", i), Simulated: 1}, rec(), &workloads.Graph{}, nil
	}
	runs, err := simulateParts(context.Background(), 8, 1, sim)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || !runs[2].bad || runs[2].res.Failure == "" || runs[2].o == nil || runs[2].g == nil {
		t.Fatalf("%d runs, last %+v; want 3 ending at the failing part 2 with its record", len(runs), runs[len(runs)-1])
	}
	for i, r := range runs[:2] {
		if r.bad || r.res.ID != fmt.Sprint("p", i) {
			t.Errorf("run %d: %+v, want part %d's good run", i, r, i)
		}
		if keep := i == 1; (r.o != nil) != keep || (r.g != nil) != keep {
			t.Errorf("run %d: record kept %v, graph kept %v; want %v (only the kept part's)", i, r.o != nil, r.g != nil, keep)
		}
	}
	// all good: every part, in order
	runs, err = simulateParts(context.Background(), 5, 0, func(i int) (ValidationResult, *Record, *workloads.Graph, error) {
		return ValidationResult{ID: fmt.Sprint("p", i)}, nil, nil, nil
	})
	if err != nil || len(runs) != 5 || runs[4].res.ID != "p4" {
		t.Fatalf("%d runs, err %v; want 5 in order", len(runs), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := simulateParts(ctx, 3, 0, sim); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v, want context.Canceled", err)
	}
}
