package collectives

// NCCL's tuning constants, from src/graph/tuning.cc of NVIDIA/nccl
// (commit 5067397, 2026): base and per-hop latencies in microseconds,
// bandwidth caps in GB/s (1e9 bytes/s). Indices follow NCCL's: the
// architecture (Volta, Ampere, Hopper, Blackwell), the number of nodes
// (1, 2, more), the protocol (LL, LL128, Simple).

type arch int

const (
	archVolta arch = iota
	archAmpere
	archHopper
	archBlackwell
)

type algo int

// The algorithms NCCL tunes over (CollNet is off without a SHARP-capable
// network, as NCCL's default collnetEnable = 0 leaves it).
const (
	algoTree algo = iota
	algoRing
	algoNVLS
	algoNVLSTree
	algoPAT
	numAlgos
)

var algoNames = [numAlgos]string{"tree", "ring", "nvls", "nvls-tree", "pat"}

type proto int

const (
	protoLL proto = iota
	protoLL128
	protoSimple
	numProtos
)

var protoNames = [numProtos]string{"LL", "LL128", "Simple"}

type hw int

const (
	hwNVLink hw = iota
	hwPCI
	hwNet
)

// baseLatencies[algo][proto] (tuning.cc ncclTunerConstantsDefaults).
var baseLatencies = [numAlgos][numProtos]float64{
	algoTree:     {6.8, 14.0, 8.4},
	algoRing:     {6.6, 14.0, 8.4},
	algoNVLS:     {0, 0, 0},
	algoNVLSTree: {0, 0, 0},
	algoPAT:      {8.0, 8.0, 8.0},
}

// hwLatencies[hw][algo][proto].
var hwLatencies = [3][numAlgos][numProtos]float64{
	hwNVLink: {
		algoTree: {0.6, 1.25, 4.0}, algoRing: {0.6, 1.9, 3.4},
		algoNVLS: {0, 0, 25}, algoNVLSTree: {0, 0, 25}, algoPAT: {0, 0, 4.0},
	},
	hwPCI: {
		algoTree: {1.0, 1.9, 4.0}, algoRing: {1.0, 2.5, 5.7},
		algoNVLS: {0, 0, 0}, algoNVLSTree: {0, 0, 0}, algoPAT: {0, 0, 4.0},
	},
	hwNet: {
		algoTree: {5.0, 8.5, 14}, algoRing: {2.7, 4.0, 14.0},
		algoNVLS: {0, 0, 18}, algoNVLSTree: {0, 0, 20.9}, algoPAT: {0, 0, 14},
	},
}

// llMaxBws[index1][nodes]: index1 is the architecture on one node and
// the CPU vendor (0 = Intel) across nodes.
var llMaxBws = [4][3]float64{
	{39.0, 39.0, 20.4},
	{87.7, 22.5, 19.0},
	{141.0, 45.0, 35.0},
	{2 * 141.0, 2 * 45.0, 2 * 35.0},
}

var perChMaxRingLL128Bws = [4][3]float64{
	{20.0, 20.0, 20.0},
	{20.0, 20.0, 20.0},
	{36.7, 36.7, 36.7},
	{40.0, 40.0, 40.0},
}

var perChMaxTreeLL128Bws = [4][3]float64{
	{20.0, 20.0, 20.0},
	{20.0, 20.0, 20.0},
	{36.7, 36.7, 29.0},
	{55.6, 31.67, 20.0},
}

var perChMaxTreeBws = [4][3]float64{
	{26.5, 18.5, 10.0},
	{24.0, 23.6, 17.8},
	{38.7, 41.4, 36.0},
	{70.0, 42.8, 24.0},
}

var perChMaxNVLSTreeBws = [4][3]float64{
	{26.5, 18.5, 10.0},
	{24.0, 23.6, 17.8},
	{0.0, 57.7, 45.5},
	{0.0, 96.0, 80.0},
}

// nvlsEfficiency per architecture (NVLS needs Hopper or later).
var nvlsEfficiency = [4]float64{0, 0, 0.85, 0.74}

// treeCorrectionFactor[proto][log2(bytes/64)] for tree all-reduce, sizes
// 64 B to 256 MiB (tuning.cc).
var treeCorrectionFactor = [numProtos][24]float64{
	{1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
	{1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
	{.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}

// netOverhead is NCCL's per-step network post overhead on an Intel x86
// host, in microseconds (tuning.cc getNetOverhead).
const netOverhead = 1.0

// The speeds NCCL's topology search tries for a channel, in GB/s, fastest
// first (search.cc): within a node and across nodes, per architecture.
var (
	speedArrayIntra      = []float64{40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0}
	speedArrayInter      = []float64{48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12}
	sm90SpeedArrayIntra  = []float64{60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0}
	sm90SpeedArrayInter  = []float64{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
	sm100SpeedArrayIntra = []float64{90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0}
	sm100SpeedArrayInter = []float64{96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
)

// maxChannels is MAXCHANNELS/2, the most channels NCCL's ring search
// asks for (init.cc); maxNVLSArity is NCCL_MAX_NVLS_ARITY (device.h).
const (
	maxChannels  = 32
	maxNVLSArity = 32
)

// NCCL's figure for one link's usable bandwidth (topo.h), per link, in
// GB/s, against the raw per-direction signalling rate placesim's link
// kinds carry: SM70/SM80 NVLink 20.0 of 25, SM90 20.6 of 25, SM100 40.1
// of 50; PCIe Gen3 x16 12.0 of 15.75. The ratio converts a device's raw
// scale-up bandwidth into what NCCL's search works with.
var nvlinkEfficiency = [4]float64{20.0 / 25, 20.0 / 25, 20.6 / 25, 40.1 / 50}

const pcieEfficiency = 12.0 / 15.75

// LinkEfficiency is the share of a link's raw per-direction bandwidth
// that NCCL's kernels move data at over it, as NCCL's topology model
// counts a link (topo.h: LOC, SM60/SM70/SM80 NVLink 20.0 GB/s per link,
// SM90 20.6, SM100 40.1 of 50; PCI Gen3 x16 12.0 GB/s of 15.75), for a
// GPU of architecture arch (a devices.Kind's Arch: "volta", "ampere",
// "hopper", ...) and a link of family ("nvlink", "pcie", as the links
// package names them): the ratios nvlinkEfficiency and pcieEfficiency
// that the tuning model reads. Other families (network links, whose
// bandwidth NCCL reads from the adapter's speed as is) are 1.
func LinkEfficiency(arch, family string) float64 {
	switch family {
	case "nvlink":
		return nvlinkEfficiency[archOf(arch)]
	case "pcie":
		return pcieEfficiency
	}
	return 1
}
