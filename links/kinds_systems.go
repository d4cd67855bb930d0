package links

// Link kinds of today's data-centre systems (NVLink 5, Infinity Fabric,
// 400/800 Gb/s adapters). Figures are per direction, as in kinds.go.
var (
	// NVLink5 is one NVLink 5 link (Blackwell): 50 GB/s per direction; a
	// B200 has 18 links, 1.8 TB/s bidirectional in all (NVIDIA HGX B200
	// and GB200 NVL72 datasheets: "NVLink 1.8 TB/s" per GPU).
	NVLink5 = Kind{Name: "nvlink5", Family: "nvlink", Bandwidth: 50e9, Latency: 0.7e-6}
	// InfinityFabric is one AMD Infinity Fabric (xGMI) link of the MI300X
	// platform: 64 GB/s per direction; each MI300X has 7 links to its 7
	// peers, 896 GB/s bidirectional in all (AMD Instinct MI300X data
	// sheet: "7x Infinity Fabric links, 128 GB/s peak bandwidth each").
	InfinityFabric = Kind{Name: "xgmi", Family: "nvlink", Bandwidth: 64e9, Latency: 1e-6}
	// IBXDR is InfiniBand XDR 4x: 800 Gb/s = 100 GB/s per direction
	// (NVIDIA Quantum-X800 / ConnectX-8 SuperNIC).
	IBXDR = Kind{Name: "ib-xdr", Family: "ib", Bandwidth: 100e9, Latency: 1e-6}
	// Eth400G is 400 Gigabit Ethernet (IEEE 802.3bs; RoCE, Spectrum-X):
	// 50 GB/s per direction.
	Eth400G = Kind{Name: "400gbe", Family: "ethernet", Bandwidth: 50e9, Latency: 3e-6}
	// Eth800G is 800 Gigabit Ethernet (IEEE 802.3df): 100 GB/s per
	// direction.
	Eth800G = Kind{Name: "800gbe", Family: "ethernet", Bandwidth: 100e9, Latency: 3e-6}
)

func init() {
	for _, k := range []Kind{NVLink5, InfinityFabric, IBXDR, Eth400G, Eth800G} {
		kinds[k.Name] = k
	}
}

// Network reports whether links of this family cross a data-centre
// network (InfiniBand, Ethernet) rather than stay inside a node or an
// NVLink domain.
func Network(family string) bool { return family == "ib" || family == "ethernet" }
