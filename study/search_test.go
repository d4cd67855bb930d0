package study

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"placesim/engine/llm"
	"placesim/parallel"
	"placesim/workloads/zoo"
)

// smallSearch is a search small enough to simulate every candidate.
func smallSearch(t *testing.T, spec string, gpus, gbs int, sp SearchSpace) *SearchRequest {
	t.Helper()
	m, err := zoo.ParseLLM(spec)
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.System("dgx-h100", gpus)
	if err != nil {
		t.Fatal(err)
	}
	return &SearchRequest{Workload: spec, Model: m, Cluster: c, GPUs: gpus, GlobalBatch: gbs, Precision: parallel.BF16, Space: sp}
}

// TestEnumerateCountByHand: llama3.1-8b with 4 layers on 4 GPUs, global
// batch 8, tp <= 2, cp = 1, vp <= 2, mbs 1, no recomputation, sharding
// none or zero1. By hand:
//
//	tp=1: pp=1 dp=4: none, zero1                       2
//	      pp=2 dp=2: vp=1, vp=2 (4 layers over 4, 4 micro-batches, a
//	                 multiple of pp) x none, zero1      4
//	      pp=4 dp=1: vp=1 (vp=2 is 8 stages for 4 layers), nothing to
//	                 shard over: none                   1
//	tp=2: pp=1 dp=2: none, zero1                       2
//	      pp=2 dp=1: vp=1, vp=2 (8 micro-batches), none 2
//
// 11 layouts.
func TestEnumerateCountByHand(t *testing.T) {
	sp := SearchSpace{MaxTP: 2, MaxCP: 1, MaxVP: 2, MicroBatches: []int{1}, Recompute: []parallel.Recompute{parallel.RecomputeNone},
		Sharding: []parallel.Sharding{parallel.ShardNone, parallel.ShardZeRO1}, Planners: []string{PlannerEven}}
	r := smallSearch(t, "zoo:llama3.1-8b?layers=4&seq=2048", 4, 8, sp)
	cands, err := EnumerateLayouts(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 11 {
		for _, c := range cands {
			t.Log(c.Layout)
		}
		t.Fatalf("%d candidates, want 11 (counted by hand)", len(cands))
	}
}

// TestEnumerateValid: every candidate of the default space is a valid
// job of exactly the request's GPUs and global batch, and no two are
// the same.
func TestEnumerateValid(t *testing.T) {
	for _, tc := range []struct {
		spec      string
		gpus, gbs int
	}{{"zoo:llama3.1-70b", 64, 128}, {"zoo:mixtral-8x7b?seq=4096", 32, 64}, {"zoo:llama3.1-8b", 8, 32}} {
		t.Run(tc.spec, func(t *testing.T) {
			r := smallSearch(t, tc.spec, tc.gpus, tc.gbs, DefaultSearchSpace())
			cands, err := EnumerateLayouts(r)
			if err != nil {
				t.Fatal(err)
			}
			if len(cands) == 0 {
				t.Fatal("no candidates")
			}
			seen := map[string]bool{}
			for i, c := range cands {
				l := c.Layout
				if c.Index != i {
					t.Fatalf("candidate %d has index %d", i, c.Index)
				}
				if err := l.Validate(); err != nil {
					t.Fatalf("%s: %v", l, err)
				}
				if l.GPUs() != tc.gpus || l.GlobalBatch != tc.gbs {
					t.Fatalf("%s: %d GPUs, gbs %d (want %d, %d)", l, l.GPUs(), l.GlobalBatch, tc.gpus, tc.gbs)
				}
				if _, err := llm.MemoryOf(&llm.Job{Model: r.Model, Layout: l, Cluster: r.Cluster}); err != nil {
					t.Fatalf("%s: job refused: %v", l, err)
				}
				k := l.String() + "|" + c.Planner
				if seen[k] {
					t.Fatalf("%s listed twice", k)
				}
				seen[k] = true
			}
		})
	}
}

// TestPruningKeepsEveryFit: on a small model, every enumerated layout is
// simulated; one the closed form rules out never simulates without
// running out of memory, and the search's ranking holds exactly the
// layouts that simulate within memory.
func TestPruningKeepsEveryFit(t *testing.T) {
	sp := DefaultSearchSpace()
	sp.MaxVP, sp.MicroBatches = 2, []int{1, 4}
	sp.Recompute = []parallel.Recompute{parallel.RecomputeNone, parallel.RecomputeFull}
	r := smallSearch(t, "zoo:llama3.1-8b?seq=16384", 8, 16, sp)
	res, err := SearchLayouts(context.Background(), r, SearchOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	cands, _ := EnumerateLayouts(r)
	fits := map[int]bool{}
	pruned := 0
	for _, c := range cands {
		out, err := llm.Simulate(&llm.Job{Model: r.Model, Layout: c.Layout, Cluster: r.Cluster})
		if err != nil {
			t.Fatalf("%s: %v", c.Layout, err)
		}
		rec := res.Records[c.Index]
		if rec.NotComparable == notComparablePruned {
			pruned++
			if out.OOM == nil {
				t.Errorf("%s: ruled out before simulating, but simulates within memory (peak %d of %d)", c.Layout, out.PeakMemory, rec.Capacity[0])
			}
		}
		if out.OOM == nil {
			fits[c.Index] = true
		}
	}
	t.Logf("%d candidates: %d pruned, %d fit, %d simulated out of memory", len(cands), pruned, len(fits), res.Counts.OOM)
	if pruned == 0 || len(fits) == 0 {
		t.Fatalf("pruned %d, fit %d of %d: the case must have both", pruned, len(fits), len(cands))
	}
	if len(res.Ranked) != len(fits) {
		t.Errorf("ranked %d layouts, %d simulate within memory", len(res.Ranked), len(fits))
	}
	for _, i := range res.Ranked {
		if !fits[res.Records[i].Index] {
			t.Errorf("ranked %s, which runs out of memory", res.Records[i].Regime)
		}
	}
	if res.Counts.Pruned != pruned || res.Counts.Enumerated != len(cands) || res.Counts.Simulated != len(cands)-pruned-res.Counts.Invalid {
		t.Errorf("counts %+v (pruned %d of %d)", res.Counts, pruned, len(cands))
	}
}

// TestSearchDeterministic: one worker or three, the same records and
// ranking; a search resumed from its journal simulates nothing again and
// gives the same; two shards merged give the whole.
func TestSearchDeterministic(t *testing.T) {
	sp := DefaultSearchSpace()
	sp.MaxVP, sp.MicroBatches = 2, []int{1, 2}
	r := smallSearch(t, "zoo:llama3.1-8b?seq=4096", 8, 16, sp)
	ctx := context.Background()
	a, err := SearchLayouts(ctx, r, SearchOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b, err := SearchLayouts(ctx, r, SearchOptions{Workers: 3, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, x, y *SearchResult) {
		t.Helper()
		jx, _ := json.Marshal(x.Records)
		jy, _ := json.Marshal(y.Records)
		if string(jx) != string(jy) || !reflect.DeepEqual(x.Ranked, y.Ranked) {
			t.Fatalf("%s: records or ranking differ", what)
		}
	}
	same("1 vs 3 workers", a, b)
	if len(a.Ranked) < 2 {
		t.Fatalf("%d ranked: too few to check an order", len(a.Ranked))
	}
	simulated := 0
	c, err := SearchLayouts(ctx, r, SearchOptions{Workers: 2, Dir: dir, Progress: func(done, total int) { simulated++ }})
	if err != nil {
		t.Fatal(err)
	}
	if simulated != 0 {
		t.Errorf("resumed search simulated %d candidates again", simulated)
	}
	same("resumed", a, c)
	// shards
	sdir := t.TempDir()
	for i := 0; i < 2; i++ {
		sh := Shard{I: i, N: 2}
		part, err := SearchLayouts(ctx, r, SearchOptions{Workers: 1, Dir: sdir, Shard: sh})
		if err != nil {
			t.Fatal(err)
		}
		res := &Results{Scenario: &Scenario{Name: "search"}, Shard: "x", Records: part.Records}
		if err := WriteResults(SearchResultsFile(sdir, sh), res, nil); err != nil {
			t.Fatal(err)
		}
	}
	pts, err := SearchPoints(r)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := MergeSearch(sdir, pts)
	if err != nil {
		t.Fatal(err)
	}
	m := &SearchResult{Records: recs, Ranked: RankSearch(recs)}
	same("merged shards", a, m)
	if got := CountSearch(recs); got != a.Counts {
		t.Errorf("merged counts %+v, whole %+v", got, a.Counts)
	}
}
