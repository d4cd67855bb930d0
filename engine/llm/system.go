package llm

import (
	"fmt"
	"strings"

	"placesim/devices"
)

// System builds the system of a one-line spec (devices.ParseSystem:
// "dgx-h100", "dgx-a100-80gb:fabric=fat-tree,oversubscription=4",
// "gb200-nvl72", ...) with enough nodes for gpus GPUs when the spec gives
// no size (nodes=, racks=), as the system column of
// ../shared/fidelity/llm.tsv names a family only; a sized spec must hold
// at least gpus GPUs.
func System(spec string, gpus int) (*devices.Cluster, error) {
	if gpus < 1 || gpus > devices.MaxSystemGPUs {
		return nil, fmt.Errorf("%w: system %s with %d GPUs (valid range: 1 to %d)", ErrJob, spec, gpus, devices.MaxSystemGPUs)
	}
	sp, err := devices.ParseSystem(spec)
	if err != nil {
		return nil, err
	}
	name := spec
	sized := false
	if _, rest, ok := strings.Cut(spec, ":"); ok {
		for _, kv := range strings.Split(rest, ",") {
			k, _, _ := strings.Cut(kv, "=")
			switch strings.TrimSpace(strings.ToLower(k)) {
			case "nodes", "racks", "gpus":
				sized = true
			}
		}
	}
	if !sized {
		// whole NVLink domains (a GB200 rack is one domain of 18 trays)
		per := sp.GPUsPerNode
		if sp.Domain > per {
			per = sp.Domain
		}
		units := (gpus + per - 1) / per
		sp.Nodes = units * per / sp.GPUsPerNode
		sep := ":"
		if strings.Contains(spec, ":") {
			sep = ","
		}
		size := fmt.Sprintf("nodes=%d", sp.Nodes)
		for _, f := range devices.SystemFamilies() {
			if f.Name == sp.Base && f.Unit == "racks" {
				size = fmt.Sprintf("racks=%d", units)
			}
		}
		name = spec + sep + size
	}
	c, err := sp.Build(name)
	if err != nil {
		return nil, err
	}
	if len(c.Devices) < gpus {
		return nil, fmt.Errorf("%w: system %s has %d GPUs, the layout needs %d", ErrJob, name, len(c.Devices), gpus)
	}
	return c, nil
}
