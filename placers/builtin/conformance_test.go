package builtin_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"placesim/placers"
	"placesim/placers/mip/miptest"
	"placesim/placers/placertest"
)

// conformanceOptions keep the solver-backed placers short on the
// conformance graphs: CBC stops at once and returns its warm start, which
// must still be a valid plan (each is also checked at length in its
// family's tests).
var conformanceOptions = map[string]placers.Options{
	"pesto":                  {"timelimit": "0.05"},
	"tarnawski-ip":           {"time-limit": "0.01", "node-limit": "1"},
	"tarnawski-ip-noncontig": {"time-limit": "0.01", "node-limit": "1"},
}

// needsCBC lists the placers that cannot run without the cbc solver.
var needsCBC = map[string]bool{"pesto": true, "tarnawski-ip": true, "tarnawski-ip-noncontig": true}

// TestEveryBuiltinPassesConformance runs placertest on every registered
// placer, made through the registry as the CLI makes it, so that a placer
// added to the list is checked without anyone remembering to.
func TestEveryBuiltinPassesConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole conformance suite over every placer: not in -short")
	}
	r := registry(t)
	expert := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(expert, []byte(`{"default": 0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range r.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if needsCBC[name] {
				miptest.Require(t)
			}
			opts := conformanceOptions[name]
			if name == "expert" {
				opts = placers.Options{"file": expert}
			}
			p, err := r.New(name, opts)
			if err != nil {
				t.Fatal(err)
			}
			cfg := placertest.Config{Timeout: time.Minute, MemoryAware: placers.IsMemoryAware(p)}
			if needsCBC[name] {
				cfg.Clusters = []string{"2xV100-nvlink+cpu"} // a solver run per call: one cluster here, both in the family's tests
			}
			placertest.Run(t, p, cfg)
		})
	}
}

// TestEveryBuiltinPlaysInEveryRegime plays every registered placer's plans
// on zoo models in a step, GPipe and 1F1B pipelines, data parallelism and a
// pipeline with data parallelism (placertest.RunRegimes): no placer's plan
// may deadlock or fail in any of them (issue 28: pesto's strict order
// deadlocked under data parallelism).
func TestEveryBuiltinPlaysInEveryRegime(t *testing.T) {
	if testing.Short() {
		t.Skip("every placer in every regime: not in -short")
	}
	r := registry(t)
	for _, name := range r.Names() {
		if name == "expert" {
			continue // needs a file naming the model's ops; its plan is a plain placement, checked above
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if needsCBC[name] {
				miptest.Require(t)
			}
			p, err := r.New(name, conformanceOptions[name])
			if err != nil {
				t.Fatal(err)
			}
			placertest.RunRegimes(t, p, placertest.Config{Timeout: time.Minute, MemoryAware: placers.IsMemoryAware(p)})
		})
	}
}
