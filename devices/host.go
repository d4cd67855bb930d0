package devices

import (
	"fmt"

	"placesim/workloads"
)

// Host-side costs of an eager framework's per-iteration Python work, the
// time a GPU waits for its host after a synchronising read. Measured with
// scripts/host_overhead.py (PyTorch 2.11, CUDA 13, one H100 80GB HBM3 on
// an Intel Xeon host; medians of 20 repetitions, two runs): the figures
// of the host that ran the measurement, not of the DGX-1's Xeon E5-2698 v4
// or the DGX A100's EPYC 7742, whose single threads are slower, so they
// are lower bounds there.
const (
	// HostEagerOpTime is the host time to issue one small in-place eager
	// op from Python (`g /= x` on a CUDA tensor) right after a
	// synchronisation: the 185 gradients of Transformer-big (843 MB, FP32)
	// divided one by one took 1.42 and 2.03 ms from the synchronisation to
	// the last kernel's end (two runs; 1.08 ms of it GPU time), the loop
	// host-bound: 7.7 and 11.0 us per op, 9.3 us on average (12.5 us per op
	// issued behind a GPU backlog).
	HostEagerOpTime = 9.3e-6
	// HostBlockingRead is one blocking read of a small CUDA tensor
	// (`t[i].item()`: the slice, the device-to-host copy and the stream
	// synchronisation) with the GPU idle: 11.4 and 14.7 us in two runs.
	HostBlockingRead = 13e-6
	// HostGatherListPerRank is fairseq's all_gather_list host work per
	// rank of the world (distributed_utils.py: pickle the logging outputs,
	// fill a 16 KiB CUDA byte buffer, then per rank two .item() of the size
	// header, a .tolist() of the payload and pickle.loads): 0.39 ms for 8
	// ranks, the collective itself not included.
	HostGatherListPerRank = 0.39e-3 / 8
	// HostOptimizerKernelTime is the host time per kernel of
	// torch.optim.SGD's per-tensor loop (foreach=False, as PyTorch 1.9
	// ran it) and zero_grad(set_to_none=False) issued right after a
	// synchronisation: ResNet-50's 161 tensors (55 with weight decay: 4
	// kernels, 106 batch-norm tensors without: 3, then one zero_ each, 699
	// kernels) took 4.47 and 4.55 ms to the last kernel's end, 1.80 and
	// 1.93 ms of it GPU time: 6.5 us per kernel (scripts/sgd_overhead.py).
	HostOptimizerKernelTime = 4.51e-3 / 699
)

// GradientPassTime is the GPU time of one elementwise pass over a
// gradient of bytes on kind k, read and written in place (an in-place
// division or scaling kernel): the kind's elementwise row of its kernel
// table, launch overhead included. Its FLOPs count 4-byte elements; the
// pass is bound by memory either way.
func GradientPassTime(bytes int64, k *Kind) (float64, error) {
	return GradientWordsTime(bytes, 2, 4, k)
}

// GradientWordsTime is the GPU time of one elementwise kernel over a
// gradient of bytes whose elements are elemBytes wide, moving words times
// the gradient's bytes (2: an in-place pass; 3: an in-place add of a
// second gradient) with one FLOP per element, on kind k.
func GradientWordsTime(bytes int64, words float64, elemBytes int64, k *Kind) (float64, error) {
	if bytes < 0 || !(words > 0) || elemBytes < 1 {
		return 0, fmt.Errorf("gradient pass: bytes = %d (valid range: >= 0), words = %g (valid: > 0), element bytes = %d (valid: >= 1)", bytes, words, elemBytes)
	}
	op := workloads.Op{Name: "gradient pass", Type: "div", Role: workloads.Backward, BytesAccessed: int64(words * float64(bytes)), FLOPs: float64(bytes / elemBytes)}
	return OpTime(&op, k)
}

// HostIssuedLoop is the wall time of n kernels issued one by one from the
// host right after a synchronisation (the GPU idle): the host issues
// kernel i at (i+1) x issue, the GPU runs it once it is issued and the
// previous one has ended, gpu[i] long. It returns the wall time from the
// synchronisation to the last kernel's end; wall - sum(gpu) is the time
// the GPU waited for the host.
func HostIssuedLoop(gpu []float64, issue float64) float64 {
	var end float64
	for i, g := range gpu {
		at := float64(i+1) * issue
		if at > end {
			end = at
		}
		end += g
	}
	return end
}

// HostCPU is a server's host processors: what a CPU input pipeline
// (decoding and augmenting images in DataLoader worker processes) runs on.
type HostCPU struct {
	// Name is the processors as a datasheet names them.
	Name string
	// Sockets, CoresPerSocket and ThreadsPerCore are the physical layout.
	Sockets, CoresPerSocket, ThreadsPerCore int
	// BaseGHz is the clock every core holds with all of them busy (the
	// datasheets' base frequency, their all-core guarantee); BoostGHz the
	// highest clock a few busy cores reach (max boost / max turbo).
	BaseGHz, BoostGHz float64
	// Source is the datasheet the numbers are read from.
	Source string
}

// Cores is the server's physical cores.
func (c *HostCPU) Cores() int { return c.Sockets * c.CoresPerSocket }

// Validate checks the processors' numbers.
func (c *HostCPU) Validate() error {
	switch {
	case c.Sockets < 1 || c.CoresPerSocket < 1 || c.ThreadsPerCore < 1:
		return fmt.Errorf("host CPU %q: sockets %d, cores per socket %d, threads per core %d (valid range: >= 1 each)", c.Name, c.Sockets, c.CoresPerSocket, c.ThreadsPerCore)
	case !(c.BaseGHz > 0) || c.BoostGHz < c.BaseGHz:
		return fmt.Errorf("host CPU %q: base %g GHz, boost %g GHz (valid range: base > 0, boost >= base)", c.Name, c.BaseGHz, c.BoostGHz)
	}
	return nil
}

// The host processors of the servers the validation set's measurements
// were taken on.
var (
	// DGXA100CPU: NVIDIA DGX A100 datasheet (2020): "Dual AMD Rome 7742,
	// 128 cores total, 2.25 GHz (base), 3.4 GHz (max boost)"; AMD EPYC
	// 7742 product page: 64 cores, 128 threads, base 2.25 GHz, max boost
	// up to 3.4 GHz.
	DGXA100CPU = HostCPU{Name: "2x AMD EPYC 7742", Sockets: 2, CoresPerSocket: 64, ThreadsPerCore: 2, BaseGHz: 2.25, BoostGHz: 3.4,
		Source: "NVIDIA DGX A100 datasheet; AMD EPYC 7742 product page"}
	// DGX1CPU: NVIDIA DGX-1 datasheet: "Dual 20-Core Intel Xeon
	// E5-2698 v4 2.2 GHz"; Intel ARK E5-2698 v4: 20 cores, 40 threads,
	// base 2.20 GHz, max turbo 3.60 GHz.
	DGX1CPU = HostCPU{Name: "2x Intel Xeon E5-2698 v4", Sockets: 2, CoresPerSocket: 20, ThreadsPerCore: 2, BaseGHz: 2.2, BoostGHz: 3.6,
		Source: "NVIDIA DGX-1 datasheet; Intel ARK Xeon E5-2698 v4"}
)
