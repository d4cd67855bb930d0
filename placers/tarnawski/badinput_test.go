package tarnawski_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/maxload"
	"placesim/placers/mip"
	"placesim/placers/tarnawski"
	"placesim/workloads"
)

func TestBadInput(t *testing.T) {
	factories := []struct {
		name string
		f    placers.Factory
	}{
		{"tarnawski-dp", placers.Typed(tarnawski.NewDP)},
		{"tarnawski-dpl", placers.Typed(tarnawski.NewDPL)},
		{"tarnawski-ip", placers.Typed(tarnawski.NewIP)},
		{"tarnawski-ip-noncontig", placers.Typed(tarnawski.NewIPNonContig)},
		{"pipedream", placers.Typed(tarnawski.NewPipeDream)},
		{"greedy", placers.Typed(tarnawski.NewGreedy)},
	}
	chain := workloads.Chain(6, []float64{1e-3, 2e-3}, 1<<20)
	big := workloads.Chain(6, []float64{1e-3}, 1<<20)
	for i := range big.Ops {
		big.Ops[i].ParamBytes = 1 << 30
	}
	big.Ops[3].ParamBytes = 3 << 30
	big.Ops[3].Name = "huge"
	cyclic := workloads.Chain(4, []float64{1e-3}, 1<<20)
	cyclic.AddEdge(3, 1, 1<<20)
	cpuOnly := workloads.Chain(3, []float64{1e-3}, 1<<20)
	cpuOnly.Ops[1].CPUOnly = true
	tests := []struct {
		name    string
		g       *workloads.Graph
		k, l    int
		mem     int64
		wantIs  error
		wantMsg []string
	}{
		{"no accelerator (k = 0)", chain, 0, 2, 1 << 30, maxload.ErrNoAccelerator, []string{"k = 0"}},
		// "huge" keeps its 3 GiB of parameters resident; its 1 MiB output is
		// read at once by the next op, transient (graphalg.OpMemories)
		{"memory too small", big, 2, 0, 2 << 30, placers.ErrDoesNotFit, []string{"infeasible: ", `"huge"`, fmt.Sprintf("needs %d bytes", 3<<30)}},
		{"cycle", cyclic, 2, 1, 1 << 30, workloads.ErrCycle, []string{"cycle"}},
		{"CPU-only op and no CPU", cpuOnly, 2, 0, 1 << 30, placers.ErrDoesNotFit, []string{"infeasible: ", `"op1"`}},
	}
	for _, f := range factories {
		for _, tc := range tests {
			t.Run(f.name+"/"+tc.name, func(t *testing.T) {
				var opts placers.Options
				if strings.HasPrefix(f.name, "tarnawski-ip") {
					opts = placers.Options{"time-limit": "10"}
				}
				p, err := f.f(opts)
				if err != nil {
					t.Fatal(err)
				}
				c, err := devices.AccCPU("bad", tc.k, tc.l, tc.mem)
				if err != nil {
					t.Fatal(err)
				}
				est, err := devices.NewEstimates(tc.g, c, devices.EstimateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				plan, err := p.Place(context.Background(), &placers.Request{Graph: tc.g, Cluster: c, Estimates: est})
				if errors.Is(err, mip.ErrNoSolver) {
					t.Skip(err)
				}
				if err == nil {
					t.Fatalf("no error; plan %v", plan.Device)
				}
				if !errors.Is(err, tc.wantIs) {
					t.Errorf("error %v does not wrap %v", err, tc.wantIs)
				}
				for _, w := range tc.wantMsg {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
			})
		}
	}
}

func TestBadOptions(t *testing.T) {
	tests := []struct {
		name string
		f    placers.Factory
		opts placers.Options
		want string
	}{
		{"dp unknown option", placers.Typed(tarnawski.NewDP), placers.Options{"gap": "0.1"}, `unknown option "gap"`},
		{"dp max-memory-mib", placers.Typed(tarnawski.NewDP), placers.Options{"max-memory-mib": "0"}, "max-memory-mib"},
		{"dp pipeline", placers.Typed(tarnawski.NewDP), placers.Options{"pipeline": "zigzag"}, "pipeline="},
		{"ip objective", placers.Typed(tarnawski.NewIP), placers.Options{"objective": "energy"}, "objective="},
		{"ip gap", placers.Typed(tarnawski.NewIP), placers.Options{"gap": "-1"}, "gap="},
		{"ip format", placers.Typed(tarnawski.NewIP), placers.Options{"format": "xml"}, "format="},
		{"ip slots on contiguous", placers.Typed(tarnawski.NewIP), placers.Options{"slots": "2"}, `unknown option "slots"`},
		{"ip warm start", placers.Typed(tarnawski.NewIPNonContig), placers.Options{"warm-start": "maybe"}, "warm-start="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.f(tc.opts)
			if !errors.Is(err, placers.ErrBadOption) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrBadOption mentioning %q", err, tc.want)
			}
		})
	}
}

// TestIPMissingSolver: without cbc the IP placers fail with a clear error
// saying what to install.
func TestIPMissingSolver(t *testing.T) {
	g := workloads.Chain(4, []float64{1e-3}, 1<<20)
	c, _ := devices.AccCPU("t", 2, 1, 1<<30)
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	for _, f := range []placers.Factory{placers.Typed(tarnawski.NewIP), placers.Typed(tarnawski.NewIPNonContig)} {
		p, err := f(placers.Options{"solver": "/nonexistent/cbc"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Place(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est})
		if !errors.Is(err, mip.ErrNoSolver) || !strings.Contains(err.Error(), "install coinor-cbc") {
			t.Errorf("%s: error %v, want ErrNoSolver saying install coinor-cbc", p.Name(), err)
		}
	}
}
