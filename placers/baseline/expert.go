package baseline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"placesim/engine"
	"placesim/internal/readfile"
	"placesim/placers"
)

var _ placers.Placer = (*Expert)(nil)

// ExpertFile is the format of an expert placement: a device per op name,
// per layer (for every op of that layer), and a default. Devices are
// names ("gpu1") or indices (1).
//
//	{"ops": {"fc1/matmul": "gpu0"}, "layers": {"fc2": 1}, "default": "gpu0"}
type ExpertFile struct {
	Ops     map[string]json.RawMessage `json:"ops,omitempty"`
	Layers  map[string]json.RawMessage `json:"layers,omitempty"`
	Default json.RawMessage            `json:"default,omitempty"`
}

// Expert places ops as a file says (option file=PATH).
type Expert struct {
	path string
	spec ExpertFile
}

// NewExpert reads the file named by option file.
func NewExpert(a ExpertArgs) (placers.Placer, error) {
	path := a.File
	if path == "" {
		return nil, fmt.Errorf("%w: expert needs file=PATH, a JSON file mapping op names or layers to devices", placers.ErrBadOption)
	}
	data, err := readfile.Read(path, readfile.MaxData)
	if err != nil {
		return nil, fmt.Errorf("read expert file: %w", err)
	}
	var f ExpertFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("expert file %q: %w (fields: ops, layers, default)", path, err)
	}
	return &Expert{path: path, spec: f}, nil
}

// Name implements placers.Placer.
func (*Expert) Name() string { return "expert" }

// Place implements placers.Placer.
func (e *Expert) Place(_ context.Context, req *placers.Request) (*engine.Plan, error) {
	g, c := req.Graph, req.Cluster
	resolve := func(field string, raw json.RawMessage) (int, error) {
		var name string
		if err := json.Unmarshal(raw, &name); err == nil {
			if d, ok := c.DeviceByName(name); ok {
				return d, nil
			}
			if d, err := strconv.Atoi(name); err == nil && d >= 0 && d < len(c.Devices) {
				return d, nil
			}
			return 0, fmt.Errorf("expert file %q: %s: unknown device %q in cluster %q", e.path, field, name, c.Name)
		}
		var idx int
		if err := json.Unmarshal(raw, &idx); err != nil || idx < 0 || idx >= len(c.Devices) {
			return 0, fmt.Errorf("expert file %q: %s: %s (valid: a device name or an index in [0, %d])", e.path, field, raw, len(c.Devices)-1)
		}
		return idx, nil
	}
	def := -1
	if len(e.spec.Default) > 0 {
		var err error
		if def, err = resolve("default", e.spec.Default); err != nil {
			return nil, err
		}
	}
	plan := placers.NewPlan(g)
	known := map[string]bool{}
	for i := range g.Ops {
		op := &g.Ops[i]
		known[op.Name] = true
		var err error
		switch {
		case e.spec.Ops[op.Name] != nil:
			plan.Device[i], err = resolve("ops."+op.Name, e.spec.Ops[op.Name])
		case op.Layer != "" && e.spec.Layers[op.Layer] != nil:
			plan.Device[i], err = resolve("layers."+op.Layer, e.spec.Layers[op.Layer])
		case def >= 0:
			plan.Device[i] = def
		default:
			return nil, fmt.Errorf("expert file %q places no device for op %q (layer %q) and has no default", e.path, op.Name, op.Layer)
		}
		if err != nil {
			return nil, err
		}
	}
	for name := range e.spec.Ops {
		if !known[name] {
			return nil, fmt.Errorf("expert file %q: ops.%s: graph %q has no such op", e.path, name, g.Name)
		}
	}
	if err := placers.CheckColocation(g, plan); err != nil {
		return nil, fmt.Errorf("expert file %q: %w", e.path, err)
	}
	return plan, nil
}
