package llm

import (
	"fmt"
	"strings"

	"placesim/devices"
	"placesim/links"
)

// System builds the multi-node machine named in ../shared/fidelity/llm.tsv
// with enough 8-GPU nodes for gpus GPUs: "dgx-h100" (8 x H100 80 GB SXM5,
// 18 NVLink 4 links each to the NVSwitch fabric, one ConnectX-7 NDR
// 400 Gb/s adapter per GPU on PCIe 5.0; NVIDIA DGX H100 user guide,
// "Hardware Overview") or "dgx-a100-80gb" (8 x A100 80 GB SXM4, 12 NVLink 3
// links each, one HDR 200 Gb/s adapter per GPU on PCIe 4.0; NVIDIA DGX A100
// user guide). Every adapter joins one non-blocking InfiniBand switch
// (a full-bisection fat-tree as one switch). This is the starting point the
// large-model issue allows until the one-line systems of issue 26 land.
func System(name string, gpus int) (*devices.Cluster, error) {
	type spec struct {
		gpu       devices.Kind
		nvl       links.Kind
		width     int
		pcie, net links.Kind
	}
	specs := map[string]spec{
		"dgx-h100":      {devices.H100_80GB, links.NVLink4, 18, links.PCIe5, links.IBNDR},
		"dgx-a100-80gb": {devices.A100_80GB, links.NVLink3, 12, links.PCIe4, links.IBHDR},
	}
	sp, ok := specs[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("%w: system %q (valid: dgx-h100, dgx-a100-80gb)", ErrJob, name)
	}
	if gpus < 1 || gpus > 1<<16 {
		return nil, fmt.Errorf("%w: system %s with %d GPUs (valid range: 1 to %d)", ErrJob, name, gpus, 1<<16)
	}
	nodes := (gpus + 7) / 8
	t := links.NewTopology()
	var devs []devices.Device
	var err error
	ep := func(n string, typ links.EndpointType) links.EndpointID {
		id, e := t.AddEndpoint(n, typ)
		if e != nil && err == nil {
			err = e
		}
		return id
	}
	connect := func(a, b links.EndpointID, k links.Kind, w int) {
		if e := t.Connect(a, b, k, w); e != nil && err == nil {
			err = e
		}
	}
	ib := ep("ib-switch", links.NetSwitch)
	for n := 0; n < nodes; n++ {
		nvs := ep(fmt.Sprintf("n%d-nvswitch", n), links.NVSwitch)
		for g := 0; g < 8; g++ {
			gname := fmt.Sprintf("n%d-gpu%d", n, g)
			id := ep(gname, links.GPU)
			devs = append(devs, devices.Device{Name: gname, Kind: sp.gpu, Endpoint: id})
			connect(id, nvs, sp.nvl, sp.width)
			nic := ep(fmt.Sprintf("n%d-nic%d", n, g), links.NIC)
			connect(id, nic, sp.pcie, 1)
			connect(nic, ib, sp.net, 1)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("system %s: %w", name, err)
	}
	return devices.NewCluster(fmt.Sprintf("%s:nodes=%d", strings.ToLower(name), nodes), t, devs)
}
