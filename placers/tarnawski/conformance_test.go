package tarnawski_test

import (
	"testing"

	"placesim/placers"
	"placesim/placers/mip/miptest"
	"placesim/placers/placertest"
	"placesim/placers/tarnawski"
)

func TestConformance(t *testing.T) {
	tests := []struct {
		name    string
		factory placers.Factory
		opts    placers.Options
		cbc     bool
	}{
		{"tarnawski-dp", placers.Typed(tarnawski.NewDP), nil, false},
		{"tarnawski-dpl", placers.Typed(tarnawski.NewDPL), nil, false},
		{"pipedream", placers.Typed(tarnawski.NewPipeDream), nil, false},
		{"greedy", placers.Typed(tarnawski.NewGreedy), nil, false},
		// a node limit keeps the runs short and deterministic
		{"tarnawski-ip", placers.Typed(tarnawski.NewIP), placers.Options{"node-limit": "50", "time-limit": "120"}, true},
		{"tarnawski-ip-noncontig", placers.Typed(tarnawski.NewIPNonContig), placers.Options{"node-limit": "50", "time-limit": "120"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cbc {
				miptest.Require(t)
			}
			p, err := tc.factory(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != tc.name {
				t.Fatalf("Name() = %q, want %q", p.Name(), tc.name)
			}
			placertest.Run(t, p, placertest.Config{MemoryAware: true})
		})
	}
}

func TestRegister(t *testing.T) {
	r := placers.NewRegistry()
	if err := tarnawski.Register(r); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tarnawski-dp", "tarnawski-dpl", "tarnawski-ip", "tarnawski-ip-noncontig", "pipedream", "greedy"} {
		t.Run(name, func(t *testing.T) {
			p, err := r.New(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != name {
				t.Fatalf("registered %q makes a placer named %q", name, p.Name())
			}
		})
	}
	if err := tarnawski.Register(r); err == nil {
		t.Fatal("registering twice: no duplicate error")
	}
}
