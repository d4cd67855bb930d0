package devices

import (
	"fmt"
	"math"

	"placesim/workloads"
)

// Grouped GEMMs (the experts of a mixture-of-experts layer). Megatron-core
// runs a GPU's local experts as one grouped GEMM (Transformer Engine's
// GroupedLinear, or the grouped_gemm package): one matrix product per
// expert, each over the tokens routed to that expert. With few tokens per
// expert each product has few output tiles, and a GEMM kernel runs its
// tiles in waves of one tile per streaming multiprocessor: the last wave
// of a product that does not fill the GPU leaves SMs idle (wave
// quantization; NVIDIA, "Matrix Multiplication Background User's Guide",
// section "Wave Quantization"). A tile is computed whole, so an output
// dimension that is not a multiple of the tile also computes the padding
// of its last row or column of tiles (tile quantization, the same guide's
// "Tile Quantization": GPT-OSS's 2,880 = 22.5 tiles of 128 runs 23). A
// large dense GEMM has so many tiles that its last wave and partial
// tiles hardly matter, which the kernel table's TensorEff already
// covers; a grouped GEMM pays them once per expert, and its launch
// overhead once per expert.

// gemmTile is the output tile of a tensor-core GEMM kernel: 128 x 128
// (CUTLASS 3's Hopper and Ampere tensor-core GEMMs, e.g. the TileShape
// of examples/48_hopper_warp_specialized_gemm and the default
// GemmShape<128, 128, 32> of CUTLASS 2's Ampere kernels; cuBLAS's
// heuristics pick among tiles of this size for BF16 products of
// thousands of rows).
const gemmTile = 128

// streamingMultiprocessors is the number of SMs (NVIDIA) or compute units
// (AMD) of a built-in kind, from its datasheet or whitepaper: the width
// of one wave of GEMM tiles.
var streamingMultiprocessors = map[string]int{
	"V100-16GB": 80, "V100-32GB": 80, // NVIDIA Tesla V100 whitepaper (2017): 80 SMs
	"A100-40GB": 108, "A100-80GB": 108, // NVIDIA A100 Tensor Core GPU Architecture (2020): 108 SMs
	"H100-80GB": 132, "H200": 132, // NVIDIA H100 Tensor Core GPU Architecture (2022): H100 SXM5 132 SMs; H200 is the same GH100 die
	"B200": 148, "GB200": 148, // NVIDIA Blackwell Architecture Technical Brief (2024): 148 SMs per B200 GPU
	"MI300X":    304, // AMD Instinct MI300X data sheet: 304 compute units
	"RTX2080Ti": 68,  // NVIDIA Turing GPU Architecture whitepaper: RTX 2080 Ti 68 SMs
}

// StreamingMultiprocessors is the SM (or compute-unit) count of kind k,
// and false for a kind whose count is not known (a custom kind).
func StreamingMultiprocessors(k *Kind) (int, bool) {
	n, ok := streamingMultiprocessors[k.Name]
	return n, ok
}

// waveEfficiency is the share of the SM-tile slots of its waves a GEMM
// with an m x n output fills with useful work: its m*n/tile^2
// tile-equivalents of output over waves x SMs slots, where the waves
// are those of its ceil(m/tile) x ceil(n/tile) whole tiles (wave and
// tile quantization together).
func waveEfficiency(m, n float64, sms int) float64 {
	tiles := math.Ceil(m/gemmTile) * math.Ceil(n/gemmTile)
	if tiles <= 0 {
		return 1
	}
	waves := math.Ceil(tiles / float64(sms))
	return m * n / (gemmTile * gemmTile) / (waves * float64(sms))
}

// GroupedGEMM is a grouped matrix product: Groups products of
// [M x K] x [K x N] each.
type GroupedGEMM struct {
	Groups  int
	M, N, K float64
}

// GroupedGEMMTime is the time of a grouped GEMM on kind k: each group's
// product priced by OpTime's GEMM row (op gives the precision and the
// whole product's bytes, shared evenly), its compute time divided by its
// wave efficiency, plus the row's launch overhead per group. backward
// prices the data gradient ([M x N] x [N x K]: an M x K output) and the
// weight gradient ([K x M] x [M x N]: a K x N output) of each group
// instead (op.FLOPs is then both of them). A kind without a kernel table
// or a known SM count is priced by OpTime as one product (no wave
// quantization), and the second result says so.
func GroupedGEMMTime(op *workloads.Op, k *Kind, g GroupedGEMM, backward bool) (float64, bool, error) {
	if g.Groups < 1 || !(g.M >= 0) || !(g.N > 0) || !(g.K > 0) {
		return 0, false, fmt.Errorf("grouped GEMM %q: groups = %d, m = %g, n = %g, k = %g (valid: groups >= 1, m >= 0, n and k > 0)", op.Name, g.Groups, g.M, g.N, g.K)
	}
	sms, ok := StreamingMultiprocessors(k)
	if !ok || k.Kernels == nil || workloads.KernelClassOf(op) != workloads.KernelGEMM {
		t, err := OpTime(op, k)
		return t, false, err
	}
	one := *op
	groups := float64(g.Groups)
	one.BytesAccessed = int64(float64(op.BytesAccessed) / groups)
	shapes := [][2]float64{{g.M, g.N}}
	if backward {
		shapes = [][2]float64{{g.M, g.K}, {g.K, g.N}}
	}
	one.FLOPs = op.FLOPs / groups / float64(len(shapes))
	one.BytesAccessed /= int64(len(shapes))
	r := k.Kernels[workloads.KernelGEMM]
	var t float64
	for _, sh := range shapes {
		base, err := OpTime(&one, k)
		if err != nil {
			return 0, false, err
		}
		comp := base - r.Overhead
		if cast := fp8CastTime(&one, k, r.MemEff); cast > 0 {
			comp -= cast
		}
		mem := float64(one.BytesAccessed) / (k.MemBandwidth * r.MemEff)
		flopsTime := math.Max(comp, 0)
		if flopsTime > mem {
			// compute bound: the idle SM-slots of the last wave and
			// the padding of partial tiles
			flopsTime = math.Max(flopsTime/waveEfficiency(sh[0], sh[1], sms), mem)
		}
		t += groups * (base - math.Max(comp, 0) + flopsTime)
	}
	return t, true, nil
}
