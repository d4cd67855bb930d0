package devices

import (
	"fmt"
	"sort"
	"strings"

	"placesim/internal/suggest"
	"placesim/links"
)

// Preset describes a named cluster.
type Preset struct {
	Name, Description string
	build             func() (*Cluster, error)
}

var presets = []Preset{
	{"1xV100", "one V100 16 GB on PCIe 3.0 to its host", func() (*Cluster, error) { return pcieBox("1xV100", V100_16GB, 1) }},
	{"4xV100-pcie", "4 x V100 32 GB on one PCIe 3.0 switch (the Celeritas testbed)", func() (*Cluster, error) { return pcieBox("4xV100-pcie", V100_32GB, 4) }},
	{"8xV100-nvlink", "DGX-1V: 8 x V100 16 GB, NVLink 2 hybrid cube-mesh, PCIe 3.0 switches, 2 sockets (FastT)", dgx1},
	{"8xV100-nvlink-2node", "2 servers x 4 x V100 16 GB, NVLink 2 within (2 bricks per pair), InfiniBand EDR between (FastT)", twoNode},
	{"2xV100-nvlink+cpu", "2 x V100 16 GB joined by NVLink 2 (2 bricks), each on its own PCIe 3.0 link to a Xeon socket that is a device too (Pesto)", pesto},
	{"6xacc+1cpu", "6 accelerators (16 GiB) + 1 CPU, each accelerator on PCIe 3.0 to the CPU's memory, zero latency (Tarnawski et al.)", func() (*Cluster, error) { return AccCPU("6xacc+1cpu", 6, 1, GenericAcc.Memory) }},
	{"4xRTX2080Ti-pcie", "4 x RTX 2080 Ti 11 GB on one PCIe 3.0 switch", func() (*Cluster, error) { return pcieBox("4xRTX2080Ti-pcie", RTX2080Ti, 4) }},
	{"8xA100-nvswitch", "DGX A100: 8 x A100 40 GB, 12 NVLink 3 links each to the NVSwitch fabric (300 GB/s per direction)", func() (*Cluster, error) { return nvswitch("8xA100-nvswitch", A100_40GB, links.NVLink3, 12) }},
	{"8xH100-nvswitch", "DGX H100: 8 x H100 80 GB, 18 NVLink 4 links each to the NVSwitch fabric (450 GB/s per direction)", func() (*Cluster, error) { return nvswitch("8xH100-nvswitch", H100_80GB, links.NVLink4, 18) }},
}

// Presets lists the named clusters, sorted by name.
func Presets() []Preset {
	p := append([]Preset(nil), presets...)
	sort.Slice(p, func(i, j int) bool { return p[i].Name < p[j].Name })
	return p
}

// PresetNames lists the preset names, sorted.
func PresetNames() []string {
	var n []string
	for _, p := range Presets() {
		n = append(n, p.Name)
	}
	return n
}

// NewPreset builds the named preset.
func NewPreset(name string) (*Cluster, error) {
	for _, p := range presets {
		if p.Name == name {
			return p.build()
		}
	}
	return nil, fmt.Errorf("%w %q (valid: %s)%s", ErrUnknownPreset, name, strings.Join(PresetNames(), ", "), suggest.DidYouMean(name, PresetNames()))
}

// builder wraps a topology for preset construction; presets are fixed, so
// any error is a bug reported by the first failing call.
type builder struct {
	t    *links.Topology
	devs []Device
	err  error
}

func newBuilder() *builder { return &builder{t: links.NewTopology()} }

func (b *builder) ep(name string, typ links.EndpointType) links.EndpointID {
	id, err := b.t.AddEndpoint(name, typ)
	if err != nil && b.err == nil {
		b.err = err
	}
	return id
}

func (b *builder) dev(name string, k Kind) links.EndpointID {
	typ := links.GPU
	if k.Class == CPU {
		typ = links.CPU
	}
	id := b.ep(name, typ)
	b.devs = append(b.devs, Device{Name: name, Kind: k, Endpoint: id})
	return id
}

func (b *builder) link(x, y links.EndpointID, k links.Kind, width int) {
	if err := b.t.Connect(x, y, k, width); err != nil && b.err == nil {
		b.err = err
	}
}

func (b *builder) cluster(name string) (*Cluster, error) {
	if b.err != nil {
		return nil, fmt.Errorf("preset %s: %w", name, b.err)
	}
	return NewCluster(name, b.t, b.devs)
}

// pcieBox: n GPUs on one PCIe 3.0 switch whose uplink goes to the host CPU
// (not a device). GPU-to-GPU traffic is peer-to-peer through the switch.
func pcieBox(name string, k Kind, n int) (*Cluster, error) {
	b := newBuilder()
	host := b.ep("host", links.CPU)
	sw := b.ep("pcie-sw0", links.PCIeSwitch)
	b.link(sw, host, links.PCIe3, 1)
	for i := 0; i < n; i++ {
		g := b.dev(fmt.Sprintf("gpu%d", i), k)
		b.link(g, sw, links.PCIe3, 1)
	}
	return b.cluster(name)
}

// dgx1 is the DGX-1 with V100: NVLink bricks per pair as `nvidia-smi topo
// -m` reports them (NV1/NV2), four PCIe switches with two GPUs each, two
// CPU sockets joined by UPI. Pairs without NVLink go over PCIe via the CPUs.
func dgx1() (*Cluster, error) {
	b := newBuilder()
	var g [8]links.EndpointID
	for i := range g {
		g[i] = b.dev(fmt.Sprintf("gpu%d", i), V100_16GB)
	}
	for _, e := range [][3]int{
		{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2},
		{1, 2, 2}, {1, 3, 1}, {1, 5, 2},
		{2, 3, 2}, {2, 6, 1},
		{3, 7, 1},
		{4, 5, 1}, {4, 6, 1}, {4, 7, 2},
		{5, 6, 2}, {5, 7, 1},
		{6, 7, 2},
	} {
		b.link(g[e[0]], g[e[1]], links.NVLink2, e[2])
	}
	cpu0 := b.ep("cpu0", links.CPU)
	cpu1 := b.ep("cpu1", links.CPU)
	b.link(cpu0, cpu1, links.QPI, 2)
	for s := 0; s < 4; s++ {
		sw := b.ep(fmt.Sprintf("pcie-sw%d", s), links.PCIeSwitch)
		cpu := cpu0
		if s >= 2 {
			cpu = cpu1
		}
		b.link(sw, cpu, links.PCIe3, 1)
		b.link(g[2*s], sw, links.PCIe3, 1)
		b.link(g[2*s+1], sw, links.PCIe3, 1)
	}
	return b.cluster("8xV100-nvlink")
}

// twoNode: two servers, each 4 V100 fully connected by NVLink 2 (two bricks
// per pair: 50 GB/s), a PCIe 3.0 switch per server with a 100 Gb/s EDR
// InfiniBand NIC, both NICs on one IB switch (GPUDirect RDMA).
func twoNode() (*Cluster, error) {
	b := newBuilder()
	ib := b.ep("ib-switch", links.NetSwitch)
	for s := 0; s < 2; s++ {
		var g [4]links.EndpointID
		for i := range g {
			g[i] = b.dev(fmt.Sprintf("n%d-gpu%d", s, i), V100_16GB)
		}
		for i := 0; i < 4; i++ {
			for j := i + 1; j < 4; j++ {
				b.link(g[i], g[j], links.NVLink2, 2)
			}
		}
		host := b.ep(fmt.Sprintf("n%d-cpu", s), links.CPU)
		sw := b.ep(fmt.Sprintf("n%d-pcie-sw", s), links.PCIeSwitch)
		nic := b.ep(fmt.Sprintf("n%d-nic", s), links.NIC)
		b.link(sw, host, links.PCIe3, 1)
		b.link(nic, sw, links.PCIe3, 1)
		b.link(nic, ib, links.IBEDR, 1)
		for i := range g {
			b.link(g[i], sw, links.PCIe3, 1)
		}
	}
	return b.cluster("8xV100-nvlink-2node")
}

// pesto: the Pesto testbed (section 5.1): two V100 SXM2 16 GB joined by
// NVLink, each with a dedicated PCIe link to a Xeon Silver 4116 socket,
// which is a placement target too (CPU-only ops).
func pesto() (*Cluster, error) {
	b := newBuilder()
	cpuKind := XeonSocket
	cpuKind.Name = "Xeon-4116"
	cpuKind.PeakFLOPS = 12 * 2.1e9 * 32 // 12 cores, 2.1 GHz, AVX-512 2 FMA units
	cpuKind.MemBandwidth = 115e9        // 6 channels DDR4-2400
	g0 := b.dev("gpu0", V100_16GB)
	g1 := b.dev("gpu1", V100_16GB)
	cpu := b.dev("cpu0", cpuKind)
	b.link(g0, g1, links.NVLink2, 2)
	b.link(g0, cpu, links.PCIe3, 1)
	b.link(g1, cpu, links.PCIe3, 1)
	return b.cluster("2xV100-nvlink+cpu")
}

// AccCPU builds the machine of Tarnawski et al.: k accelerators with mem
// bytes each and l CPU devices; every accelerator has a PCIe 3.0 link (zero
// latency, so that transfer time is bytes/bandwidth exactly) to a shared
// host memory, and the CPU devices sit on that host. Accelerator-to-
// accelerator traffic is staged through host memory (two hops), as the
// paper's cost model charges it to both ends.
func AccCPU(name string, k, l int, mem int64) (*Cluster, error) {
	if k < 0 || l < 0 || k+l == 0 {
		return nil, fmt.Errorf("cluster %s: %d accelerators and %d CPUs (valid range: k >= 0, l >= 0, k+l >= 1)", name, k, l)
	}
	if k > MaxDevices || l > MaxDevices || k+l > MaxDevices {
		return nil, fmt.Errorf("cluster %s: %d accelerators and %d CPUs (valid range: k + l <= %d devices)", name, k, l, MaxDevices)
	}
	b := newBuilder()
	host := b.ep("host-mem", links.CPU)
	pcie := links.PCIe3
	pcie.Latency = 0
	acc := GenericAcc
	acc.Memory = mem
	for i := 0; i < k; i++ {
		a := b.dev(fmt.Sprintf("acc%d", i), acc)
		b.link(a, host, pcie, 1)
	}
	for i := 0; i < l; i++ {
		c := b.dev(fmt.Sprintf("cpu%d", i), XeonSocket)
		// CPU cores share host memory: an (effectively) free link.
		if err := b.t.ConnectCustom(c, host, "host-memory", "memory", XeonSocket.MemBandwidth, 0); err != nil && b.err == nil {
			b.err = err
		}
	}
	return b.cluster(name)
}

// nvswitch: n GPUs each with width links of kind k to one NVSwitch fabric,
// plus a PCIe 4.0 path to the host.
func nvswitch(name string, gk Kind, k links.Kind, width int) (*Cluster, error) {
	b := newBuilder()
	nvs := b.ep("nvswitch", links.NVSwitch)
	host := b.ep("host", links.CPU)
	for i := 0; i < 8; i++ {
		g := b.dev(fmt.Sprintf("gpu%d", i), gk)
		b.link(g, nvs, k, width)
		b.link(g, host, links.PCIe4, 1)
	}
	return b.cluster(name)
}
