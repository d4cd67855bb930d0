package devices

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"placesim/internal/units"
	"placesim/links"
)

// Fabric is how a system's network adapters are switched.
type Fabric string

// Fabrics. The spine tier is one switch that never blocks (routes in
// placesim are single paths, so ideal ECMP over many spines is one
// spine whose links to each leaf carry the leaf's whole uplink
// bandwidth); what a leaf's uplinks carry is its downlink bandwidth over
// the oversubscription.
const (
	// SingleSwitch: every adapter on one switch (small clusters).
	SingleSwitch Fabric = "single"
	// RailOptimized: adapter r of every node on the leaves of rail r
	// (NVIDIA DGX SuperPOD reference architectures): same-rank GPUs of
	// the nodes under a leaf meet one hop away.
	RailOptimized Fabric = "rail"
	// FatTree: all adapters of a node on the same leaf, leaves joined by
	// the spine.
	FatTree Fabric = "fat-tree"
)

// SystemSpec describes a data-centre system: nodes of GPUs joined by
// NVLink domains, network adapters and a fabric. ParseSystem reads its
// one-line form; Build makes the same Cluster value as a preset or a
// cluster file.
type SystemSpec struct {
	// Base is the system's family name ("dgx-h100", "system", ...).
	Base string
	// GPU is the accelerator kind.
	GPU Kind
	// Nodes is the number of nodes (servers, or compute trays of an
	// NVL72 rack); GPUs, when > 0, caps the GPUs built (the last node or
	// NVLink domain may be partial).
	Nodes, GPUs int
	// GPUsPerNode is the GPUs of a node.
	GPUsPerNode int
	// Domain is the GPUs of one NVLink domain (a multiple of
	// GPUsPerNode): 8 on a DGX, 72 on a GB200 NVL72 rack.
	Domain int
	// NVLink is the link kind joining a GPU to its domain's NVSwitches,
	// NVLinks the number of them per GPU.
	NVLink  links.Kind
	NVLinks int
	// Mesh joins a domain's GPUs pairwise (NVLinks/(Domain-1) links per
	// pair, as AMD's Infinity Fabric on an 8-GPU MI300X platform) instead
	// of through an NVSwitch.
	Mesh bool
	// Adapters is the network adapters of a node, each of kind Adapter
	// (its bandwidth the port speed).
	Adapters int
	Adapter  links.Kind
	// Fabric, Oversubscription (leaf downlink over uplink bandwidth, >=
	// 1) and Leaf (adapters under one leaf switch).
	Fabric           Fabric
	Oversubscription float64
	Leaf             int
}

// systemFamily is a named system with its datasheet figures.
type systemFamily struct {
	name, description string
	spec              func() SystemSpec
	unit              string // "nodes" or "racks"
	perUnit           int    // nodes per unit
}

// The named systems, from the vendors' datasheets. Each GPU reaches its
// adapter over PCIe Gen5 x16 (PCIe Gen6 for adapters faster than it).
var systemFamilies = []systemFamily{
	// NVIDIA DGX A100 datasheet: 8 x A100 80 GB SXM4, 6 NVSwitches, 12
	// NVLink 3 links per GPU (600 GB/s), 8 single-port ConnectX-6 HDR
	// 200 Gb/s InfiniBand adapters; DGX SuperPOD A100 reference
	// architecture: rail-optimised fat-tree, 20 nodes... (leaf of 40
	// ports; 32 used here as for H100).
	{"dgx-a100-80gb", "DGX A100 80GB nodes: 8 x A100 80 GB, NVLink 3 (12 links) through NVSwitch, 8 x HDR 200 Gb/s adapters, rail-optimised", func() SystemSpec {
		return SystemSpec{GPU: A100_80GB, GPUsPerNode: 8, Domain: 8, NVLink: links.NVLink3, NVLinks: 12,
			Adapters: 8, Adapter: links.IBHDR, Fabric: RailOptimized, Oversubscription: 1, Leaf: 32}
	}, "nodes", 1},
	// NVIDIA DGX H100 datasheet: 8 x H100 80 GB SXM5, 4 NVSwitches, 18
	// NVLink 4 links per GPU (900 GB/s), 8 single-port ConnectX-7 400 Gb/s
	// adapters; DGX SuperPOD H100 reference architecture: rail-optimised,
	// 32 nodes per scalable unit, a leaf per rail.
	{"dgx-h100", "DGX H100 nodes: 8 x H100 80 GB, NVLink 4 (18 links) through NVSwitch, 8 x NDR 400 Gb/s adapters, rail-optimised", func() SystemSpec {
		return SystemSpec{GPU: H100_80GB, GPUsPerNode: 8, Domain: 8, NVLink: links.NVLink4, NVLinks: 18,
			Adapters: 8, Adapter: links.IBNDR, Fabric: RailOptimized, Oversubscription: 1, Leaf: 32}
	}, "nodes", 1},
	// NVIDIA DGX B200 datasheet: 8 x B200, 2 NVSwitch chips, NVLink 5
	// 1.8 TB/s per GPU (18 links), 8 x ConnectX-7 400 Gb/s adapters.
	{"dgx-b200", "DGX B200 nodes: 8 x B200, NVLink 5 (18 links) through NVSwitch, 8 x 400 Gb/s adapters, rail-optimised", func() SystemSpec {
		return SystemSpec{GPU: B200, GPUsPerNode: 8, Domain: 8, NVLink: links.NVLink5, NVLinks: 18,
			Adapters: 8, Adapter: links.IBNDR, Fabric: RailOptimized, Oversubscription: 1, Leaf: 32}
	}, "nodes", 1},
	// NVIDIA GB200 NVL72 datasheet: 72 Blackwell GPUs in 18 compute
	// trays of 2 GB200 superchips (4 GPUs), one NVLink 5 domain through 9
	// NVLink switch trays (1.8 TB/s per GPU), a ConnectX-7 400 Gb/s
	// adapter per GPU between racks.
	{"gb200-nvl72", "GB200 NVL72 racks: 72 Blackwell GPUs (18 trays of 4) in one NVLink 5 domain, a 400 Gb/s adapter per GPU, rail-optimised", func() SystemSpec {
		return SystemSpec{GPU: GB200, GPUsPerNode: 4, Domain: 72, NVLink: links.NVLink5, NVLinks: 18,
			Adapters: 4, Adapter: links.IBNDR, Fabric: RailOptimized, Oversubscription: 1, Leaf: 32}
	}, "racks", 18},
	// AMD Instinct MI300X Platform data sheet: 8 MI300X OAM modules
	// fully connected by Infinity Fabric (7 links per GPU, one per peer,
	// 128 GB/s bidirectional each: 896 GB/s). The data sheet names no
	// network adapters; 8 x 400 Gb/s Ethernet (RoCE) adapters, one per
	// GPU, as the servers built on it ship them.
	{"mi300x", "AMD MI300X platform nodes: 8 x MI300X, Infinity Fabric full mesh (one 64 GB/s link per pair), 8 x 400 Gb/s Ethernet adapters, rail-optimised", func() SystemSpec {
		return SystemSpec{GPU: MI300X, GPUsPerNode: 8, Domain: 8, NVLink: links.InfinityFabric, NVLinks: 7, Mesh: true,
			Adapters: 8, Adapter: links.Eth400G, Fabric: RailOptimized, Oversubscription: 1, Leaf: 32}
	}, "nodes", 1},
	// system: the generic form; every figure must be given or is the
	// DGX H100's.
	{"system", "generic: gpu=, gpus-per-node=, nvlink-domain=, nvlink=, nvlink-links=, adapters=, adapter-speed=, network=, fabric=, oversubscription=, leaf= (defaults: DGX H100)", func() SystemSpec {
		return SystemSpec{GPU: H100_80GB, GPUsPerNode: 8, Domain: 8, NVLink: links.NVLink4, NVLinks: 18,
			Adapters: 8, Adapter: links.IBNDR, Fabric: RailOptimized, Oversubscription: 1, Leaf: 32}
	}, "nodes", 1},
}

// SystemNames lists the system families a spec may start with.
func SystemNames() []string {
	var n []string
	for _, f := range systemFamilies {
		n = append(n, f.name)
	}
	return n
}

// SystemFamily is a system family for listings: its name, what it is and
// the spec's size key ("nodes" or "racks").
type SystemFamily struct{ Name, Description, Unit string }

// SystemFamilies lists the system families.
func SystemFamilies() []SystemFamily {
	var out []SystemFamily
	for _, f := range systemFamilies {
		out = append(out, SystemFamily{f.name, f.description, f.unit})
	}
	return out
}

// IsSystemSpec reports whether s names a system family ("dgx-h100",
// "dgx-h100:nodes=4").
func IsSystemSpec(s string) bool {
	name, _, _ := strings.Cut(s, ":")
	for _, f := range systemFamilies {
		if strings.EqualFold(name, f.name) {
			return true
		}
	}
	return false
}

// MaxSystemGPUs bounds the GPUs of a system spec: a cluster's devices
// (MaxDevices, 65,536; dgx-h100:nodes=8192 builds and times an all-reduce over all 65,536 GPUs in 1.6 s and 140 MB of RSS).
const MaxSystemGPUs = MaxDevices

// ParseSystem reads a system's one-line spec: a family name, then
// optionally ":" and comma-separated key=value settings, e.g.
// "dgx-h100:nodes=4", "gb200-nvl72:racks=2",
// "system:gpu=B200,nodes=16,nvlink-domain=16,adapter-speed=800Gb/s,fabric=fat-tree,oversubscription=4".
// Keys: nodes (or racks), gpus, gpu, gpus-per-node, nvlink-domain,
// nvlink, nvlink-links, adapters, adapter-speed, network (ib, ethernet),
// fabric (single, rail, fat-tree), oversubscription (R or R:1), leaf.
func ParseSystem(s string) (SystemSpec, error) {
	name, rest, _ := strings.Cut(s, ":")
	var fam *systemFamily
	for i := range systemFamilies {
		if strings.EqualFold(name, systemFamilies[i].name) {
			fam = &systemFamilies[i]
		}
	}
	if fam == nil {
		return SystemSpec{}, fmt.Errorf("system %q: unknown family %q (valid: %s)", s, name, strings.Join(SystemNames(), ", "))
	}
	sp := fam.spec()
	sp.Base = fam.name
	sp.Nodes = fam.perUnit
	network, speed := "", 0.0
	seen := map[string]bool{}
	if rest != "" {
		for _, kv := range strings.Split(rest, ",") {
			k, v, ok := strings.Cut(kv, "=")
			k, v = strings.TrimSpace(strings.ToLower(k)), strings.TrimSpace(v)
			if !ok || v == "" {
				return SystemSpec{}, fmt.Errorf("system %q: setting %q is not key=value (keys: %s)", s, kv, systemKeys)
			}
			if seen[k] {
				return SystemSpec{}, fmt.Errorf("system %q: key %s given twice", s, k)
			}
			seen[k] = true
			bad := func(rng string) error {
				return fmt.Errorf("system %q: field %s = %q (valid range: %s)", s, k, v, rng)
			}
			atoi := func(lo, hi int) (int, error) {
				n, err := strconv.Atoi(v)
				if err != nil || n < lo || n > hi {
					return 0, bad(fmt.Sprintf("integer in [%d, %d]", lo, hi))
				}
				return n, nil
			}
			var err error
			switch k {
			case "nodes":
				if fam.unit == "racks" {
					return SystemSpec{}, fmt.Errorf("system %q: field nodes: %s is sized in racks (racks=N)", s, fam.name)
				}
				sp.Nodes, err = atoi(1, MaxSystemGPUs)
			case "racks":
				if fam.unit != "racks" {
					return SystemSpec{}, fmt.Errorf("system %q: field racks: %s is sized in nodes (nodes=N)", s, fam.name)
				}
				var r int
				r, err = atoi(1, MaxSystemGPUs/72)
				sp.Nodes = r * fam.perUnit
			case "gpus":
				sp.GPUs, err = atoi(1, MaxSystemGPUs)
			case "gpu":
				sp.GPU, err = KindByName(v)
				if err == nil && sp.GPU.Class != Accelerator {
					err = bad("an accelerator kind")
				}
			case "gpus-per-node":
				sp.GPUsPerNode, err = atoi(1, 1024)
			case "nvlink-domain":
				sp.Domain, err = atoi(1, MaxSystemGPUs)
			case "nvlink":
				sp.NVLink, err = links.KindByName(v)
			case "nvlink-links":
				sp.NVLinks, err = atoi(1, 1024)
			case "scale-up":
				switch strings.ToLower(v) {
				case "switch":
					sp.Mesh = false
				case "mesh":
					sp.Mesh = true
				default:
					err = bad("switch, mesh")
				}
			case "adapters":
				sp.Adapters, err = atoi(0, 1024)
			case "adapter-speed":
				speed, err = units.ParseRate(v)
				if err == nil && !(speed > 0 && speed < 1e15) {
					err = bad("> 0 and < 1 PB/s, e.g. 400Gb/s")
				}
			case "network":
				network = strings.ToLower(v)
				if network != "ib" && network != "ethernet" {
					err = bad("ib, ethernet")
				}
			case "fabric":
				switch Fabric(strings.ToLower(v)) {
				case SingleSwitch, RailOptimized, FatTree:
					sp.Fabric = Fabric(strings.ToLower(v))
				case "rail-optimized", "rail-optimised":
					sp.Fabric = RailOptimized
				default:
					err = bad("single, rail, fat-tree")
				}
			case "oversubscription":
				r := strings.TrimSuffix(v, ":1")
				sp.Oversubscription, err = strconv.ParseFloat(r, 64)
				if err != nil || !(sp.Oversubscription >= 1 && sp.Oversubscription <= 1024) {
					err = bad("[1, 1024], e.g. 4 or 4:1")
				}
			case "leaf":
				sp.Leaf, err = atoi(1, 1<<16)
			default:
				return SystemSpec{}, fmt.Errorf("system %q: unknown key %q (keys: %s)", s, k, systemKeys)
			}
			if err != nil {
				if strings.Contains(err.Error(), "valid") && strings.HasPrefix(err.Error(), "system") {
					return SystemSpec{}, err
				}
				return SystemSpec{}, fmt.Errorf("system %q: field %s: %w", s, k, err)
			}
		}
	}
	if speed > 0 || network != "" {
		if speed == 0 {
			speed = sp.Adapter.Bandwidth
		}
		if network == "" {
			network = sp.Adapter.Family
		}
		sp.Adapter = adapterKind(network, speed)
	}
	if !seen["nvlink-domain"] && seen["gpus-per-node"] && (fam.name != "gb200-nvl72" || sp.Domain%sp.GPUsPerNode != 0) {
		// a node is its own NVLink domain unless the spec says otherwise
		sp.Domain = sp.GPUsPerNode
	}
	if seen["gpus-per-node"] && !seen["adapters"] && fam.name != "gb200-nvl72" {
		sp.Adapters = sp.GPUsPerNode
	}
	if err := sp.Validate(); err != nil {
		return SystemSpec{}, fmt.Errorf("system %q: %w", s, err)
	}
	return sp, nil
}

const systemKeys = "nodes|racks, gpus, gpu, gpus-per-node, nvlink-domain, nvlink, nvlink-links, scale-up, adapters, adapter-speed, network, fabric, oversubscription, leaf"

// adapterKind is the link kind of an adapter of the given network and
// port speed in bytes/s: a registered kind of that speed, else a custom
// one named for its rate.
func adapterKind(network string, speed float64) links.Kind {
	for _, k := range []links.Kind{links.IBEDR, links.IBHDR, links.IBNDR, links.IBXDR, links.Eth100G, links.Eth200G, links.Eth400G, links.Eth800G} {
		if k.Family == network && k.Bandwidth == speed {
			return k
		}
	}
	base := links.IBNDR
	if network == "ethernet" {
		base = links.Eth400G
	}
	base.Name = fmt.Sprintf("%s-%gGbps", network, speed*8/1e9)
	base.Bandwidth = speed
	return base
}

// Validate checks a spec's figures against each other.
func (sp SystemSpec) Validate() error {
	total := sp.TotalGPUs()
	switch {
	case sp.GPUsPerNode < 1:
		return fmt.Errorf("field gpus-per-node = %d (valid range: >= 1)", sp.GPUsPerNode)
	case sp.Domain < sp.GPUsPerNode || sp.Domain%sp.GPUsPerNode != 0:
		return fmt.Errorf("field nvlink-domain = %d (valid: a multiple of gpus-per-node = %d)", sp.Domain, sp.GPUsPerNode)
	case sp.Nodes < 1:
		return fmt.Errorf("field nodes = %d (valid range: >= 1)", sp.Nodes)
	case sp.GPUs > sp.Nodes*sp.GPUsPerNode:
		return fmt.Errorf("field gpus = %d (valid range: [1, %d], the nodes' GPUs)", sp.GPUs, sp.Nodes*sp.GPUsPerNode)
	case total > MaxSystemGPUs:
		return fmt.Errorf("%d GPUs (valid range: [1, %d])", total, MaxSystemGPUs)
	case sp.NVLinks < 1:
		return fmt.Errorf("field nvlink-links = %d (valid range: >= 1)", sp.NVLinks)
	case sp.Mesh && sp.Domain > maxMeshDomain:
		return fmt.Errorf("field nvlink-domain = %d with scale-up=mesh (valid range: [1, %d]: a mesh links every pair)", sp.Domain, maxMeshDomain)
	case sp.Mesh && sp.Domain > 1 && sp.NVLinks < sp.Domain-1:
		return fmt.Errorf("field nvlink-links = %d with scale-up=mesh (valid range: >= nvlink-domain - 1 = %d, a link to every peer)", sp.NVLinks, sp.Domain-1)
	case sp.Adapters < 0:
		return fmt.Errorf("field adapters = %d (valid range: >= 0)", sp.Adapters)
	case sp.Adapters == 0 && total > sp.Domain:
		return fmt.Errorf("field adapters = 0 with %d GPUs in NVLink domains of %d (valid: >= 1 adapter per node when the system has several domains)", total, sp.Domain)
	case !(sp.Oversubscription >= 1):
		return fmt.Errorf("field oversubscription = %g (valid range: >= 1)", sp.Oversubscription)
	case sp.Leaf < 1:
		return fmt.Errorf("field leaf = %d (valid range: >= 1 adapter)", sp.Leaf)
	case sp.Fabric == FatTree && sp.Adapters > sp.Leaf:
		return fmt.Errorf("field leaf = %d (valid range: >= adapters = %d: a fat-tree puts a node's adapters on one leaf)", sp.Leaf, sp.Adapters)
	}
	if sp.Fabric != SingleSwitch && sp.Fabric != RailOptimized && sp.Fabric != FatTree {
		return fmt.Errorf("field fabric = %q (valid: single, rail, fat-tree)", sp.Fabric)
	}
	return sp.GPU.Validate()
}

// TotalGPUs is the number of GPUs the spec builds.
func (sp SystemSpec) TotalGPUs() int {
	if sp.GPUs > 0 {
		return sp.GPUs
	}
	return sp.Nodes * sp.GPUsPerNode
}

// String is the spec's canonical one-line form (every setting).
func (sp SystemSpec) String() string {
	unit := fmt.Sprintf("nodes=%d", sp.Nodes)
	if sp.Base == "gb200-nvl72" && sp.Nodes%18 == 0 {
		unit = fmt.Sprintf("racks=%d", sp.Nodes/18)
	}
	s := fmt.Sprintf("%s:%s", sp.Base, unit)
	if sp.GPUs > 0 {
		s += fmt.Sprintf(",gpus=%d", sp.GPUs)
	}
	scale := "switch"
	if sp.Mesh {
		scale = "mesh"
	}
	return s + fmt.Sprintf(",gpu=%s,gpus-per-node=%d,nvlink-domain=%d,nvlink=%s,nvlink-links=%d,scale-up=%s,adapters=%d,adapter-speed=%gGb/s,network=%s,fabric=%s,oversubscription=%g,leaf=%d",
		sp.GPU.Name, sp.GPUsPerNode, sp.Domain, sp.NVLink.Name, sp.NVLinks, scale, sp.Adapters, sp.Adapter.Bandwidth*8/1e9, sp.Adapter.Family, sp.Fabric, sp.Oversubscription, sp.Leaf)
}

// NewSystem parses a one-line spec and builds its cluster.
func NewSystem(s string) (*Cluster, error) {
	sp, err := ParseSystem(s)
	if err != nil {
		return nil, err
	}
	return sp.Build(s)
}

// Build makes the system's cluster, named name: per NVLink domain one
// NVSwitch endpoint (the domain's switch chips as one non-blocking
// switch) with NVLinks links of the NVLink kind from each GPU; per node
// Adapters adapters, GPU i of the node on adapter i*Adapters/GPUsPerNode
// over PCIe; the adapters on leaf switches as the fabric says, the
// leaves on one spine. With Mesh, the domain's GPUs link pairwise instead
// of through a switch.
func (sp SystemSpec) Build(name string) (*Cluster, error) {
	t, devs, err := sp.topology()
	if err != nil {
		return nil, fmt.Errorf("system %q: %w", name, err)
	}
	return NewCluster(name, t, devs)
}

// maxMeshDomain bounds a mesh's domain: it has domain^2/2 links.
const maxMeshDomain = 64

func (sp SystemSpec) topology() (*links.Topology, []Device, error) {
	if err := sp.Validate(); err != nil {
		return nil, nil, err
	}
	total := sp.TotalGPUs()
	nodes := (total + sp.GPUsPerNode - 1) / sp.GPUsPerNode
	t := links.NewTopology()
	t.Grow(3*total+nodes*sp.Adapters+total/sp.Domain+16, 4*total+2*nodes*sp.Adapters)
	devs := make([]Device, 0, total)
	var err error
	add := func(name string, typ links.EndpointType) links.EndpointID {
		id, e := t.AddEndpoint(name, typ)
		if e != nil && err == nil {
			err = e
		}
		return id
	}
	connect := func(a, b links.EndpointID, kind, family string, bw, lat float64) {
		if e := t.ConnectCustom(a, b, kind, family, bw, lat); e != nil && err == nil {
			err = e
		}
	}
	// GPU to adapter: PCIe Gen5 x16, Gen6 (twice the rate) for faster
	// adapters
	pcie := links.PCIe5
	if sp.Adapter.Bandwidth > pcie.Bandwidth {
		pcie = links.Kind{Name: "pcie6", Family: "pcie", Bandwidth: 2 * links.PCIe5.Bandwidth, Latency: links.PCIe5.Latency}
	}
	// leaves: rail-optimised, Leaf adapters of one rail each; fat-tree,
	// the adapters of Leaf/Adapters nodes each; single, one switch
	var spine links.EndpointID = -1
	leaves := map[int]links.EndpointID{}
	leafDown := map[links.EndpointID]float64{}
	leafFor := func(node, rail int) links.EndpointID {
		var key int
		var name string
		switch sp.Fabric {
		case SingleSwitch:
			key, name = 0, "switch"
		case RailOptimized:
			g := node / sp.Leaf
			key, name = rail*1_000_000+g, fmt.Sprintf("leaf-r%d-%d", rail, g)
		default:
			g := node / (sp.Leaf / sp.Adapters)
			key, name = g, fmt.Sprintf("leaf%d", g)
		}
		if id, ok := leaves[key]; ok {
			return id
		}
		id := add(name, links.NetSwitch)
		leaves[key] = id
		return id
	}
	var nvs links.EndpointID
	nvlBW := sp.NVLink.Bandwidth * float64(sp.NVLinks)
	for g := 0; g < total; g++ {
		node, local := g/sp.GPUsPerNode, g%sp.GPUsPerNode
		if g%sp.Domain == 0 && !sp.Mesh {
			nvs = add(fmt.Sprintf("nvs%d", g/sp.Domain), links.NVSwitch)
		}
		name := fmt.Sprintf("n%d-gpu%d", node, local)
		ep := add(name, links.GPU)
		devs = append(devs, Device{Name: name, Kind: sp.GPU, Endpoint: ep})
		if sp.Mesh {
			// a link bundle to every earlier GPU of the domain
			per := float64(sp.NVLinks/max(1, sp.Domain-1)) * sp.NVLink.Bandwidth
			for p := g - g%sp.Domain; p < g; p++ {
				connect(ep, devs[p].Endpoint, sp.NVLink.Name, sp.NVLink.Family, per, sp.NVLink.Latency)
			}
		} else {
			connect(ep, nvs, sp.NVLink.Name, sp.NVLink.Family, nvlBW, sp.NVLink.Latency)
		}
		if sp.Adapters == 0 {
			continue
		}
		// the adapter of this GPU: created with the first GPU on it
		a := local * sp.Adapters / sp.GPUsPerNode
		nicName := fmt.Sprintf("n%d-nic%d", node, a)
		nic, ok := t.Endpoint(nicName)
		if !ok {
			nic = add(nicName, links.NIC)
			leaf := leafFor(node, a)
			connect(nic, leaf, sp.Adapter.Name, sp.Adapter.Family, sp.Adapter.Bandwidth, sp.Adapter.Latency)
			leafDown[leaf] += sp.Adapter.Bandwidth
		}
		connect(ep, nic, pcie.Name, pcie.Family, pcie.Bandwidth, pcie.Latency)
	}
	if len(leaves) > 1 {
		spine = add("spine", links.NetSwitch)
		ids := make([]links.EndpointID, 0, len(leaves))
		for _, id := range leaves {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			// a leaf's uplinks carry its downlink ports' bandwidth over the
			// oversubscription, counting the ports of a full leaf
			full := float64(sp.Leaf) * sp.Adapter.Bandwidth
			up := math.Max(leafDown[id], full) / sp.Oversubscription
			connect(id, spine, sp.Adapter.Name, sp.Adapter.Family, up, sp.Adapter.Latency)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	return t, devs, nil
}

// SystemKeys lists the keys a system spec may set.
func SystemKeys() []string {
	return strings.Split(strings.ReplaceAll(strings.ReplaceAll(systemKeys, "|", ", "), " ", ""), ",")
}

// SetSystemSetting returns spec with key set to value (replacing the
// key's setting if the spec has one), checked: the what-ifs of a sweep
// over a system's NVLink domain, adapter speed, oversubscription or GPU
// kind ("system.nvlink-domain=8,16,36,72").
func SetSystemSetting(spec, key, value string) (string, error) {
	if !IsSystemSpec(spec) {
		return "", fmt.Errorf("system setting %s=%s: cluster %q is not a one-line system (valid: %s)", key, value, spec, strings.Join(SystemNames(), ", "))
	}
	key = strings.ToLower(strings.TrimSpace(key))
	if !slicesContains(SystemKeys(), key) {
		return "", fmt.Errorf("system setting %q (valid: %s)", key, systemKeys)
	}
	name, rest, _ := strings.Cut(spec, ":")
	var kept []string
	if rest != "" {
		for _, kv := range strings.Split(rest, ",") {
			k, _, _ := strings.Cut(kv, "=")
			if strings.EqualFold(strings.TrimSpace(k), key) {
				continue
			}
			kept = append(kept, kv)
		}
	}
	kept = append(kept, key+"="+value)
	out := name + ":" + strings.Join(kept, ",")
	if _, err := ParseSystem(out); err != nil {
		return "", err
	}
	return out, nil
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
