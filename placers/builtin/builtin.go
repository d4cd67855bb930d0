// Package builtin assembles the registry of every built-in placer: the one
// explicit list (no init-time self-registration).
package builtin

import (
	"placesim/placers"
	"placesim/placers/baechi"
	"placesim/placers/baseline"
	"placesim/placers/celeritas"
	"placesim/placers/fastt"
	"placesim/placers/pesto"
	"placesim/placers/tarnawski"
)

// NewRegistry returns a registry with every built-in placer.
func NewRegistry() (*placers.Registry, error) {
	r := placers.NewRegistry()
	for _, register := range []func(*placers.Registry) error{
		baseline.Register,
		tarnawski.Register,
		fastt.Register,
		baechi.Register,
		celeritas.Register,
		pesto.Register,
	} {
		if err := register(r); err != nil {
			return nil, err
		}
	}
	return r, nil
}
