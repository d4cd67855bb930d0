package devices

import (
	"fmt"
	"strings"

	"placesim/internal/readfile"
	"placesim/internal/strictyaml"
	"placesim/internal/units"
	"placesim/links"
)

// ClusterFile is the YAML (or JSON) cluster format. Quantities accept units:
// sizes "16GiB", rates "25GB/s" or "100Gb/s", FLOP rates "15.7TFLOPS",
// durations "1us"; bare numbers are bytes, bytes/s, FLOP/s and seconds.
//
//	name: my-box
//	kinds:                      # optional custom device kinds
//	  - {name: myacc, class: accelerator, flops: 100TFLOPS,
//	     memBandwidth: 1TB/s, memory: 24GiB}
//	devices:                    # placement targets, in this order
//	  - {name: gpu0, kind: V100-32GB}
//	  - {name: gpu1, kind: V100-32GB, memory: 16GiB}
//	endpoints:                  # other vertices: switches, NICs, hosts
//	  - {name: sw0, type: pcie-switch}
//	links:                      # full duplex; figures per direction
//	  - {between: [gpu0, sw0], kind: pcie3}
//	  - {between: [gpu1, sw0], kind: nvlink2, width: 2, latency: 1us}
type ClusterFile struct {
	Name string `yaml:"name" json:"name"`
	// Base, when set, is a preset or one-line system ("dgx-h100:nodes=2")
	// whose devices, endpoints and links the file starts from; its own
	// devices, endpoints and links are added to them (and may link to the
	// base's by name).
	Base      string         `yaml:"base,omitempty" json:"base,omitempty"`
	Kinds     []KindSpec     `yaml:"kinds,omitempty" json:"kinds,omitempty"`
	Devices   []DeviceSpec   `yaml:"devices" json:"devices"`
	Endpoints []EndpointSpec `yaml:"endpoints,omitempty" json:"endpoints,omitempty"`
	Links     []LinkSpec     `yaml:"links" json:"links"`
}

// KindSpec declares a custom device kind; Base copies a built-in kind's
// figures first so only the differences need stating.
type KindSpec struct {
	Name              string `yaml:"name"`
	Base              string `yaml:"base,omitempty"`
	Class             string `yaml:"class,omitempty"`
	FLOPS             string `yaml:"flops,omitempty"`
	TensorFLOPS       string `yaml:"tensorFlops,omitempty"`
	MemBandwidth      string `yaml:"memBandwidth,omitempty"`
	Memory            string `yaml:"memory,omitempty"`
	ComputeEfficiency string `yaml:"computeEfficiency,omitempty"`
	MemEfficiency     string `yaml:"memEfficiency,omitempty"`
	LaunchOverhead    string `yaml:"launchOverhead,omitempty"`
}

// DeviceSpec is a placement target.
type DeviceSpec struct {
	Name   string `yaml:"name"`
	Kind   string `yaml:"kind"`
	Memory string `yaml:"memory,omitempty"`
}

// EndpointSpec is a topology vertex that is not a device.
type EndpointSpec struct {
	Name string `yaml:"name"`
	Type string `yaml:"type"`
}

// LinkSpec is a full-duplex connection.
type LinkSpec struct {
	Between   []string `yaml:"between"`
	Kind      string   `yaml:"kind"`
	Width     int      `yaml:"width,omitempty"`
	Bandwidth string   `yaml:"bandwidth,omitempty"`
	Latency   string   `yaml:"latency,omitempty"`
}

// LoadClusterFile reads a cluster file (YAML or JSON).
func LoadClusterFile(path string) (*Cluster, error) {
	data, err := readfile.Read(path, readfile.MaxYAML)
	if err != nil {
		return nil, fmt.Errorf("read cluster file: %w", err)
	}
	c, err := ParseCluster(data)
	if err != nil {
		return nil, fmt.Errorf("cluster file %q: %w", path, err)
	}
	return c, nil
}

// ParseCluster parses and builds a cluster from YAML or JSON bytes. Unknown
// fields are errors (a typo never becomes a silent default).
func ParseCluster(data []byte) (*Cluster, error) {
	var f ClusterFile
	if err := strictyaml.Decode(data, &f, "name, devices and links; see the README's cluster files"); err != nil {
		return nil, err
	}
	return f.Build()
}

// Build validates the file's contents and builds the cluster.
func (f *ClusterFile) Build() (*Cluster, error) {
	if f.Name == "" {
		return nil, fmt.Errorf("field name is empty")
	}
	if len(f.Devices) == 0 && f.Base == "" {
		return nil, fmt.Errorf("field devices is empty (a cluster needs at least one device, or a base)")
	}
	kinds := map[string]Kind{}
	for i, ks := range f.Kinds {
		k, err := ks.build()
		if err != nil {
			return nil, fmt.Errorf("kinds[%d]: %w", i, err)
		}
		// a custom kind named like a built-in would shadow it silently
		// for every device of the file (issue 31)
		if _, err := KindByName(k.Name); err == nil {
			return nil, fmt.Errorf("kinds[%d].name: %q is a built-in kind (valid: a new name; derive from it with base: %s)", i, k.Name, k.Name)
		}
		if _, dup := kinds[strings.ToLower(k.Name)]; dup {
			return nil, fmt.Errorf("kinds[%d].name: %q is defined twice (valid: one definition per kind)", i, k.Name)
		}
		kinds[strings.ToLower(k.Name)] = k
	}
	t := links.NewTopology()
	var devs []Device
	if f.Base != "" {
		// a preset or a system, never a file: a cluster file names no
		// other file to read
		var base *Cluster
		var err error
		if IsSystemSpec(f.Base) {
			base, err = NewSystem(f.Base)
		} else {
			base, err = NewPreset(f.Base)
		}
		if err != nil {
			return nil, fmt.Errorf("field base: %w (valid: a preset or a one-line system such as dgx-h100:nodes=2)", err)
		}
		t = base.Topology.Clone()
		devs = append(devs, base.Devices...)
	}
	for i, d := range f.Devices {
		k, ok := kinds[strings.ToLower(d.Kind)]
		if !ok {
			var err error
			if k, err = KindByName(d.Kind); err != nil {
				return nil, fmt.Errorf("devices[%d].kind: %w", i, err)
			}
		}
		typ := links.GPU
		if k.Class == CPU {
			typ = links.CPU
		}
		ep, err := t.AddEndpoint(d.Name, typ)
		if err != nil {
			return nil, fmt.Errorf("devices[%d].name: %w", i, err)
		}
		dev := Device{Name: d.Name, Kind: k, Endpoint: ep}
		if d.Memory != "" {
			if dev.Memory, err = units.ParseBytes(d.Memory); err != nil {
				return nil, fmt.Errorf("devices[%d].memory: %w", i, err)
			}
			if dev.Memory == 0 {
				return nil, fmt.Errorf("devices[%d].memory: %q (valid range: > 0 bytes, e.g. 16GiB)", i, d.Memory)
			}
		}
		devs = append(devs, dev)
	}
	for i, e := range f.Endpoints {
		typ := links.EndpointType(e.Type)
		switch typ {
		case links.CPU, links.PCIeSwitch, links.NVSwitch, links.NIC, links.NetSwitch:
		default:
			return nil, fmt.Errorf("endpoints[%d].type: %q (valid: cpu, pcie-switch, nvswitch, nic, net-switch)", i, e.Type)
		}
		if _, err := t.AddEndpoint(e.Name, typ); err != nil {
			return nil, fmt.Errorf("endpoints[%d].name: %w", i, err)
		}
	}
	for i, l := range f.Links {
		if len(l.Between) != 2 {
			return nil, fmt.Errorf("links[%d].between: %d names (valid: exactly 2 endpoint or device names)", i, len(l.Between))
		}
		var ends [2]links.EndpointID
		for j, n := range l.Between {
			id, ok := t.Endpoint(n)
			if !ok {
				return nil, fmt.Errorf("links[%d].between[%d]: unknown endpoint %q (declare it under devices or endpoints)", i, j, n)
			}
			ends[j] = id
		}
		k, err := links.KindByName(l.Kind)
		if err != nil {
			return nil, fmt.Errorf("links[%d].kind: %w", i, err)
		}
		w := l.Width
		if w == 0 {
			w = 1
		}
		if w < 1 {
			return nil, fmt.Errorf("links[%d].width: %d (valid range: >= 1)", i, l.Width)
		}
		bw, lat := k.Bandwidth*float64(w), k.Latency
		if l.Bandwidth != "" {
			if bw, err = units.ParseRate(l.Bandwidth); err != nil {
				return nil, fmt.Errorf("links[%d].bandwidth: %w", i, err)
			}
		}
		if l.Latency != "" {
			if lat, err = units.ParseSeconds(l.Latency); err != nil {
				return nil, fmt.Errorf("links[%d].latency: %w", i, err)
			}
		}
		if err := t.ConnectCustom(ends[0], ends[1], k.Name, k.Family, bw, lat); err != nil {
			return nil, fmt.Errorf("links[%d]: %w", i, err)
		}
	}
	return NewCluster(f.Name, t, devs)
}

func (ks KindSpec) build() (Kind, error) {
	if ks.Name == "" {
		return Kind{}, fmt.Errorf("name: empty")
	}
	k := Kind{Name: ks.Name, ComputeEfficiency: gpuComputeEff, MemEfficiency: gpuMemEff, LaunchOverhead: gpuLaunch, Class: Accelerator}
	if ks.Base != "" {
		b, err := KindByName(ks.Base)
		if err != nil {
			return Kind{}, fmt.Errorf("base: %w", err)
		}
		k = b
		k.Name = ks.Name
	}
	var err error
	if ks.Class != "" {
		k.Class = Class(ks.Class)
	}
	if ks.FLOPS != "" {
		if k.PeakFLOPS, err = units.ParseFLOPS(ks.FLOPS); err != nil {
			return Kind{}, fmt.Errorf("flops: %w", err)
		}
	}
	if ks.TensorFLOPS != "" {
		if k.TensorFLOPS, err = units.ParseFLOPS(ks.TensorFLOPS); err != nil {
			return Kind{}, fmt.Errorf("tensorFlops: %w", err)
		}
	}
	if ks.MemBandwidth != "" {
		if k.MemBandwidth, err = units.ParseRate(ks.MemBandwidth); err != nil {
			return Kind{}, fmt.Errorf("memBandwidth: %w", err)
		}
	}
	if ks.Memory != "" {
		if k.Memory, err = units.ParseBytes(ks.Memory); err != nil {
			return Kind{}, fmt.Errorf("memory: %w", err)
		}
	}
	for _, f := range []struct {
		name string
		s    string
		dst  *float64
	}{{"computeEfficiency", ks.ComputeEfficiency, &k.ComputeEfficiency}, {"memEfficiency", ks.MemEfficiency, &k.MemEfficiency}} {
		if f.s == "" {
			continue
		}
		if _, err := fmt.Sscan(f.s, f.dst); err != nil {
			return Kind{}, fmt.Errorf("%s: %q is not a number (valid range: [%g, 1])", f.name, f.s, MinEfficiency)
		}
	}
	if ks.LaunchOverhead != "" {
		if k.LaunchOverhead, err = units.ParseSeconds(ks.LaunchOverhead); err != nil {
			return Kind{}, fmt.Errorf("launchOverhead: %w", err)
		}
	}
	if ks.ComputeEfficiency != "" || ks.MemEfficiency != "" || ks.LaunchOverhead != "" {
		// explicit roofline figures: the plain roofline, not the base
		// kind's kernel table
		k.Kernels = nil
	}
	return k, k.Validate()
}

// Resolve returns a preset by name, a system by its one-line spec
// ("dgx-h100:nodes=2", see ParseSystem) or, when the name is a path to a
// file (contains a path separator or ends in .yaml/.yml/.json), loads it.
func Resolve(spec string) (*Cluster, error) {
	if IsSystemSpec(spec) {
		return NewSystem(spec)
	}
	if strings.ContainsAny(spec, `/\`) || strings.HasSuffix(spec, ".yaml") || strings.HasSuffix(spec, ".yml") || strings.HasSuffix(spec, ".json") {
		return LoadClusterFile(spec)
	}
	return NewPreset(spec)
}
