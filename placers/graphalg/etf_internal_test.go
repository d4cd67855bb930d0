package graphalg

import (
	"context"
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
// children, the schedules are identical.
func TestETFMatchesReference(t *testing.T) {
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
					if (err1 == nil) != (err2 == nil) {
						t.Fatalf("heap ETF error %v, reference %v", err1, err2)
					}
					if err1 != nil {
						t.Skipf("does not fit: %v", err1)
					}
					if !reflect.DeepEqual(s1.Dev, s2.Dev) || !reflect.DeepEqual(s1.Start, s2.Start) {
						for v := range s1.Dev {
							if s1.Dev[v] != s2.Dev[v] || s1.Start[v] != s2.Start[v] {
								t.Fatalf("op %d: heap ETF on %d at %g, reference on %d at %g", v, s1.Dev[v], s1.Start[v], s2.Dev[v], s2.Start[v])
							}
						}
					}
				})
			}
		}
	}
}
