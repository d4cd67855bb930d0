package study

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"placesim/devices"
	"placesim/engine"
	"placesim/internal/readfile"
	"placesim/workloads"
)

// StageKind is where a pipeline's stages come from.
type StageKind uint8

// Sources of pipeline stages (StageSource.Kind).
const (
	// StagesAuto makes every device the placer uses a stage, in the
	// topological order of their first forward op (the default: the zero
	// StageSource).
	StagesAuto StageKind = iota
	// StagesEven splits the graph into equal shares of forward layers, one
	// per accelerator the placer was given (engine.EvenStages), replacing
	// the placer's devices.
	StagesEven
	// StagesFile reads the stages from a stage file (see ParseStages),
	// replacing the placer's devices.
	StagesFile
)

// StageSource is a pipeline's stage source: auto (the zero value), even,
// or a stage file. It is parsed once from a flag or a regime string
// (ParseStageSource) and flows unchanged to the pipeline.
type StageSource struct {
	Kind StageKind
	// File is the stage file of StagesFile.
	File string
}

// String is the source as ParseStageSource reads it: auto, even or the
// file's path.
func (s StageSource) String() string {
	switch s.Kind {
	case StagesEven:
		return "even"
	case StagesFile:
		return s.File
	}
	return "auto"
}

// ParseStageSource reads "auto" (or ""), "even", or a stage file's path.
func ParseStageSource(s string) StageSource {
	switch strings.TrimSpace(s) {
	case "", "auto":
		return StageSource{}
	case "even":
		return StageSource{Kind: StagesEven}
	}
	return StageSource{Kind: StagesFile, File: s}
}

// placementCluster is the cluster the placer places on. Without data
// parallelism it is c. With n replicas it is c's first floor(A/n)
// accelerators (A: c's accelerators, in index order), so that the other
// replicas find devices of their own; back maps its device indices to c's.
func placementCluster(c *devices.Cluster, dp *engine.DataParallel) (pc *devices.Cluster, back []int, err error) {
	if dp == nil || dp.Replicas <= 1 {
		return c, nil, nil
	}
	accs := c.Accelerators()
	k := len(accs) / dp.Replicas
	if k < 1 {
		return nil, nil, &FieldError{Field: "replicas",
			Msg:   fmt.Sprintf("data parallelism: %d replicas need at least %d accelerators, cluster %q has %d", dp.Replicas, dp.Replicas, c.Name, len(accs)),
			Valid: fmt.Sprintf("<= %d", max(1, len(accs)))}
	}
	back = accs[:k]
	devs := make([]devices.Device, k)
	for i, d := range back {
		devs[i] = c.Devices[d]
	}
	pc, err = devices.NewCluster(fmt.Sprintf("%s[replica of %d]", c.Name, k), c.Topology, devs)
	if err != nil {
		return nil, nil, fmt.Errorf("data parallelism: placement cluster: %w", err)
	}
	return pc, back, nil
}

// parallelize maps a plan made on the placement cluster back to c and adds
// the spec's pipeline and data parallelism.
func (s Spec) parallelize(g *workloads.Graph, c *devices.Cluster, plan *engine.Plan, back []int) (*engine.Plan, error) {
	if s.Pipeline == nil && s.Stages.Kind != StagesAuto {
		return nil, &FieldError{Field: "schedule", Msg: fmt.Sprintf("stages %q given without a pipeline schedule", s.Stages), Valid: "gpipe|1f1b|pipedream"}
	}
	if s.Pipeline == nil && s.DataParallel == nil {
		return plan, nil
	}
	p := *plan
	if back != nil {
		p.Device = make([]int, len(plan.Device))
		for i, d := range plan.Device {
			p.Device[i] = back[d]
		}
		if plan.Order != nil {
			p.Order = make([][]int, len(c.Devices))
			for d, ops := range plan.Order {
				p.Order[back[d]] = ops
			}
		}
	}
	if s.Pipeline != nil {
		pl := *s.Pipeline
		p.Pipeline = &pl
		// the schedule fixes each device's order
		p.Order, p.Priority = nil, nil
		if plan.Graph != nil {
			g = plan.Graph
		}
		switch s.Stages.Kind {
		case StagesAuto:
			pl.Stages = nil
		case StagesEven:
			accs := c.Accelerators()
			if back != nil {
				accs = back
			}
			dev, stages, err := engine.EvenStages(g, accs)
			if err != nil {
				return nil, fmt.Errorf("stages even: %w", err)
			}
			p.Device, pl.Stages = dev, stages
		case StagesFile:
			dev, stages, err := LoadStages(s.Stages.File, g, c)
			if err != nil {
				return nil, err
			}
			p.Device, pl.Stages = dev, stages
		}
	}
	if s.DataParallel != nil {
		dp := *s.DataParallel
		p.DataParallel = &dp
	}
	return &p, nil
}

// stageFile is the JSON of a stage file.
type stageFile struct {
	Stages []stageEntry `json:"stages"`
}

// stageEntry is one stage: its device and the forward layers and ops it
// holds.
type stageEntry struct {
	Device string   `json:"device"`
	Layers []string `json:"layers"`
	Ops    []string `json:"ops"`
}

// LoadStages reads a stage file (see ParseStages).
func LoadStages(path string, g *workloads.Graph, c *devices.Cluster) (device []int, stages [][]int, err error) {
	data, err := readfile.Read(path, readfile.MaxData)
	if err != nil {
		return nil, nil, fmt.Errorf("read stage file: %w", err)
	}
	return ParseStages(data, path, g, c)
}

// ParseStages decodes a stage file for graph g on cluster c:
//
//	{"stages": [
//	  {"device": "gpu0", "layers": ["embed", "layer0", "layer1"]},
//	  {"device": "gpu1", "layers": ["layer2", "layer3"], "ops": ["head/loss"]}
//	]}
//
// Stages are in pipeline order. "layers" names Op.Layer values (all the
// forward ops of the layer), "ops" names ops. Every forward op must be in
// one stage; backward and update ops not named follow their forward op
// (engine.FollowStages). "device" is a device name; omitted, stage i runs
// on the cluster's i-th accelerator. Unknown fields, names and devices are
// errors naming the file and the field. It returns every op's device and
// the stages (engine.Pipeline.Stages).
func ParseStages(data []byte, file string, g *workloads.Graph, c *devices.Cluster) (device []int, stages [][]int, err error) {
	errf := func(format string, args ...any) error {
		return fmt.Errorf("stage file %q: %s", file, fmt.Sprintf(format, args...))
	}
	var sf stageFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sf); err != nil {
		return nil, nil, errf("%v (want {\"stages\": [{\"device\": NAME, \"layers\": [...], \"ops\": [...]}, ...]})", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, errf("trailing data after the JSON object")
	}
	if len(sf.Stages) == 0 {
		return nil, nil, errf("field stages is empty (valid: one or more stages)")
	}
	byName := make(map[string]int, len(g.Ops))
	byLayer := map[string][]int{}
	for i, op := range g.Ops {
		byName[op.Name] = i
		if op.Role == workloads.Forward && op.Layer != "" {
			byLayer[op.Layer] = append(byLayer[op.Layer], i)
		}
	}
	accs := c.Accelerators()
	stage := make([]int, len(g.Ops))
	for i := range stage {
		stage[i] = -1
	}
	devs := make([]int, len(sf.Stages))
	put := func(v, s int, field string) error {
		if o := stage[v]; o >= 0 {
			return errf("%s: op %q is already in stages[%d] (stages must not overlap)", field, g.Ops[v].Name, o)
		}
		stage[v] = s
		return nil
	}
	for s, st := range sf.Stages {
		switch {
		case st.Device != "":
			d, ok := c.DeviceByName(st.Device)
			if !ok {
				var names []string
				for _, dv := range c.Devices {
					names = append(names, dv.Name)
				}
				return nil, nil, errf("stages[%d].device = %q is not a device of cluster %q (valid: %s)", s, st.Device, c.Name, strings.Join(names, ", "))
			}
			devs[s] = d
		case s < len(accs):
			devs[s] = accs[s]
		default:
			return nil, nil, errf("stages[%d] has no device and cluster %q has only %d accelerators (valid: give stages[%d].device)", s, c.Name, len(accs), s)
		}
		if len(st.Layers) == 0 && len(st.Ops) == 0 {
			return nil, nil, errf("stages[%d] names no layer and no op (valid: at least one)", s)
		}
		for j, l := range st.Layers {
			ops, ok := byLayer[l]
			if !ok {
				return nil, nil, errf("stages[%d].layers[%d] = %q: graph %q has no forward op in that layer", s, j, l, g.Name)
			}
			for _, v := range ops {
				if err := put(v, s, fmt.Sprintf("stages[%d].layers[%d]", s, j)); err != nil {
					return nil, nil, err
				}
			}
		}
		for j, name := range st.Ops {
			v, ok := byName[name]
			if !ok {
				return nil, nil, errf("stages[%d].ops[%d] = %q: graph %q has no op of that name", s, j, name, g.Name)
			}
			if err := put(v, s, fmt.Sprintf("stages[%d].ops[%d]", s, j)); err != nil {
				return nil, nil, err
			}
		}
	}
	device, stages, err = engine.FollowStages(g, stage, devs)
	if err != nil {
		return nil, nil, errf("%v", err)
	}
	return device, stages, nil
}
