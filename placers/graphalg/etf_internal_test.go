package graphalg

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"placesim/devices"
	"placesim/placers"
	"placesim/workloads"
)

// TestETFMatchesReference checks the heap-based ETF against the plain one
// on random graphs: with and without memory, colocation and favourite
// children, the schedules are identical (devices, start and finish times,
// every device's timeline) or both fail with the same error; and the
// memory-aware cases do exercise memory (some fit, and some place
// differently from the unconstrained run).
func TestETFMatchesReference(t *testing.T) {
	memFits, memDiffers := 0, 0
	defer func() {
		if !t.Failed() && (memFits == 0 || memDiffers == 0) {
			t.Errorf("memory-aware cases: %d fit, %d differ from the unconstrained placement; want some of each", memFits, memDiffers)
		}
	}()
	unconstrained := map[string][]int{}
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 6; seed++ {
		g := workloads.RandomLayered(500, 11+int(seed), seed)
		r := rand.New(rand.NewPCG(seed, 9))
		if seed%2 == 0 { // colocation pairs
			for i := 0; i+1 < len(g.Ops); i += 7 {
				g.Ops[i].Colocation = fmt.Sprint("g", i)
				g.Ops[i+1+r.IntN(5)%(len(g.Ops)-i-1)].Colocation = fmt.Sprint("g", i)
			}
		}
		for _, memAware := range []bool{false, true} {
			for _, withFav := range []bool{false, true} {
				t.Run(fmt.Sprintf("seed%d/mem=%v/fav=%v", seed, memAware, withFav), func(t *testing.T) {
					cl := c
					if memAware { // tight memory: about a third of the graph per device
						cl = c.Clone()
						var total int64
						for i := range g.Ops {
							total += g.Ops[i].OutputBytes
						}
						for d := range cl.Devices {
							cl.Devices[d].Memory = total / 3
						}
					}
					est, err := devices.NewEstimates(g, cl, devices.EstimateOptions{Mode: devices.Noisy, Sigma: 0.2, Seed: seed})
					if err != nil {
						t.Fatal(err)
					}
					p, err := NewProblem(&placers.Request{Graph: g, Cluster: cl, Estimates: est})
					if err != nil {
						t.Fatal(err)
					}
					cfg := ETFConfig{Level: p.BLevel(), MemoryAware: memAware}
					if withFav {
						cfg.FavParent = make([]int32, len(g.Ops))
						for v := range cfg.FavParent {
							cfg.FavParent[v] = -1
							if pr := p.DAG.Pred(v); len(pr) > 0 && r.IntN(2) == 0 {
								cfg.FavParent[v] = pr[r.IntN(len(pr))]
							}
						}
					}
					s1, s2 := p.Schedule(), p.Schedule()
					err1 := ETF(context.Background(), s1, p.Book(), cfg)
					err2 := etfReference(context.Background(), s2, p.Book(), cfg)
					if fmt.Sprint(err1) != fmt.Sprint(err2) {
						t.Fatalf("heap ETF error %v, reference %v", err1, err2)
					}
					if err1 != nil {
						if !memAware || !errors.Is(err1, placers.ErrDoesNotFit) {
							t.Fatalf("error %v, want none or (memory-aware) ErrDoesNotFit", err1)
						}
						return // both refuse alike
					}
					for v := range s1.Dev {
						if s1.Dev[v] != s2.Dev[v] || s1.Start[v] != s2.Start[v] || s1.Finish[v] != s2.Finish[v] {
							t.Fatalf("op %d: heap ETF on %d at [%g, %g], reference on %d at [%g, %g]", v,
								s1.Dev[v], s1.Start[v], s1.Finish[v], s2.Dev[v], s2.Start[v], s2.Finish[v])
						}
					}
					if !reflect.DeepEqual(s1.Lines, s2.Lines) {
						t.Fatal("same ops, times and devices, but the device timelines differ")
					}
					key := fmt.Sprintf("%d/%v", seed, withFav)
					if !memAware {
						unconstrained[key] = append([]int(nil), s1.Dev...)
						return
					}
					memFits++
					if u, ok := unconstrained[key]; ok && !reflect.DeepEqual(u, s1.Dev) {
						memDiffers++
					}
				})
			}
		}
	}
}
