package study

import (
	"context"
	"errors"
	"sort"

	"placesim/devices"
	"placesim/placers"
	"placesim/workloads"
)

// CompareSpec is a comparison of placers on one workload and cluster.
type CompareSpec struct {
	// Placers to run; empty means every registered placer that needs no
	// options.
	Placers []string
	// Base is copied into each run's Spec (seed, estimates, options).
	Base Spec
}

// Compare runs each placer and returns one outcome per placer, sorted by
// step time (failed runs last, then by name). A placer that fails is a row
// with its error, never a lost run.
func Compare(ctx context.Context, reg *placers.Registry, g *workloads.Graph, c *devices.Cluster, cs CompareSpec) ([]*Outcome, error) {
	names := cs.Placers
	if len(names) == 0 {
		for _, n := range reg.Names() {
			if _, err := reg.New(n, nil); err == nil {
				names = append(names, n)
			} else if !errors.Is(err, placers.ErrBadOption) {
				return nil, err
			}
		}
	}
	var rows []*Outcome
	for _, n := range names {
		s := cs.Base
		s.Placer = n
		o, err := Run(ctx, reg, g, c, s)
		if err != nil {
			return nil, err
		}
		rows = append(rows, o)
	}
	SortOutcomes(rows)
	return rows, nil
}

// SortOutcomes orders rows by step time, failed rows last, ties by name.
func SortOutcomes(rows []*Outcome) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Failed() != b.Failed() {
			return !a.Failed()
		}
		if a.StepTime != b.StepTime {
			return a.StepTime < b.StepTime
		}
		return a.Placer < b.Placer
	})
}
