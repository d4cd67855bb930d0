package links

import (
	"fmt"
	"sort"
	"strings"
)

// Kind is a type of link: its bandwidth per direction for one lane group
// (one PCIe x16 slot, one NVLink brick, one network port) and its one-way
// latency per hop. A topology link may bundle several of them (Width).
type Kind struct {
	// Name is the registered name, e.g. "pcie3", "nvlink2", "ib-hdr".
	Name string
	// Family groups kinds for what-if studies: "pcie", "nvlink", "ib", "ethernet".
	Family string
	// Bandwidth is bytes per second in one direction.
	Bandwidth float64
	// Latency is the one-way latency of one hop in seconds.
	Latency float64
}

// The vendor figures. Bandwidths are the raw per-direction signalling rates
// after line encoding, as the specifications quote them; latencies are
// typical one-hop figures (PCIe/NVLink DMA ~1 us, IB switch-to-host ~1 us,
// RoCE Ethernet ~3 us).
var (
	// PCIe3 is PCIe 3.0 x16: 8 GT/s x 16 lanes x 128/130 = 15.75 GB/s per
	// direction (PCI-SIG PCIe Base Specification 3.0).
	PCIe3 = Kind{Name: "pcie3", Family: "pcie", Bandwidth: 15.75e9, Latency: 1e-6}
	// PCIe4 is PCIe 4.0 x16: 16 GT/s x 16 x 128/130 = 31.5 GB/s per direction.
	PCIe4 = Kind{Name: "pcie4", Family: "pcie", Bandwidth: 31.5e9, Latency: 1e-6}
	// PCIe5 is PCIe 5.0 x16: 32 GT/s x 16 x 128/130 = 63 GB/s per direction.
	PCIe5 = Kind{Name: "pcie5", Family: "pcie", Bandwidth: 63e9, Latency: 1e-6}
	// NVLink2 is one NVLink 2.0 brick (V100): 25 GB/s per direction; a V100
	// has 6 bricks, 300 GB/s bidirectional in all (NVIDIA V100 datasheet).
	NVLink2 = Kind{Name: "nvlink2", Family: "nvlink", Bandwidth: 25e9, Latency: 0.7e-6}
	// NVLink3 is one NVLink 3.0 link (A100): 25 GB/s per direction; 12 links,
	// 600 GB/s bidirectional (NVIDIA A100 datasheet).
	NVLink3 = Kind{Name: "nvlink3", Family: "nvlink", Bandwidth: 25e9, Latency: 0.7e-6}
	// NVLink4 is one NVLink 4.0 link (H100 SXM): 25 GB/s per direction; 18
	// links, 900 GB/s bidirectional (NVIDIA H100 datasheet).
	NVLink4 = Kind{Name: "nvlink4", Family: "nvlink", Bandwidth: 25e9, Latency: 0.7e-6}
	// IBEDR is InfiniBand EDR 4x: 100 Gb/s = 12.5 GB/s per direction.
	IBEDR = Kind{Name: "ib-edr", Family: "ib", Bandwidth: 12.5e9, Latency: 1e-6}
	// IBHDR is InfiniBand HDR 4x: 200 Gb/s = 25 GB/s per direction.
	IBHDR = Kind{Name: "ib-hdr", Family: "ib", Bandwidth: 25e9, Latency: 1e-6}
	// IBNDR is InfiniBand NDR 4x: 400 Gb/s = 50 GB/s per direction.
	IBNDR = Kind{Name: "ib-ndr", Family: "ib", Bandwidth: 50e9, Latency: 1e-6}
	// Eth100G is 100 Gigabit Ethernet (IEEE 802.3ba): 12.5 GB/s per direction.
	Eth100G = Kind{Name: "100gbe", Family: "ethernet", Bandwidth: 12.5e9, Latency: 3e-6}
	// Eth200G is 200 Gigabit Ethernet (IEEE 802.3bs): 25 GB/s per direction.
	Eth200G = Kind{Name: "200gbe", Family: "ethernet", Bandwidth: 25e9, Latency: 3e-6}
)

var kinds = map[string]Kind{}

func init() {
	for _, k := range []Kind{PCIe3, PCIe4, PCIe5, NVLink2, NVLink3, NVLink4, IBEDR, IBHDR, IBNDR, Eth100G, Eth200G} {
		kinds[k.Name] = k
	}
}

// KindByName returns the link kind registered under name.
func KindByName(name string) (Kind, error) {
	k, ok := kinds[strings.ToLower(name)]
	if !ok {
		return Kind{}, fmt.Errorf("%w %q (valid: %s)", ErrUnknownKind, name, strings.Join(KindNames(), ", "))
	}
	return k, nil
}

// KindNames lists the registered link kinds, sorted.
func KindNames() []string {
	names := make([]string, 0, len(kinds))
	for n := range kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
