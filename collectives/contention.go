package collectives

import "math"

// What a collective's kernel takes from the compute that runs beside it on
// the same GPU. NCCL runs a collective as one kernel with a thread block
// per channel (src/enqueue.cc, ncclLaunchKernel: dim3 grid =
// {nChannels, 1, 1}), each block
// resident on an SM for the whole call, and moves its data through the
// GPU's memory: both are taken from the kernels of the compute stream
// while the two overlap. The classic engine's data-parallel all-reduce
// (engine.CollectiveModel.Resources) and the large-model simulator's
// tensor-parallel collectives (engine/llm, tp.go) charge compute with
// these shares.

// SMShare is the share of a GPU's S SMs that a collective kernel of
// `channels` channels holds (one SM per channel's block); 0 when S is not
// known (S <= 0) or there are no channels, at most 1.
func SMShare(channels, S int) float64 {
	if S <= 0 || channels <= 0 {
		return 0
	}
	return float64(min(channels, S)) / float64(S)
}

// Stolen is how much longer a kernel takes when a collective of c seconds
// runs beside it and holds share f (in [0, 1]) of the resource the kernel
// is bound by: the kernel runs at 1-f of its speed while the collective
// lasts, so it ends c·f later (of the overlap, c). This is the rule of
// engine/llm's tensor-parallel overlap with f = SMShare.
func Stolen(c, f float64) float64 {
	if c <= 0 || f <= 0 {
		return 0
	}
	return c * math.Min(f, 1)
}

// RingHBMPerByte is the device-memory traffic of a ring all-reduce among
// n GPUs on each GPU, in bytes per byte the GPU receives (so that the
// traffic rate is RingHBMPerByte(n) x busbw, nccl-tests' bus bandwidth
// being the bytes each rank receives per second). It counts the
// primitives of NCCL's ring (src/device/all_reduce.h, runRing, with
// direct peer-to-peer buffers as over NVLink), a chunk of c bytes each:
//
//   - step 0, directSend: the input chunk read (c);
//   - n-2 steps directRecvReduceDirectSend: the chunk the previous GPU
//     wrote into this one's buffer (c), read back (c) with the input
//     chunk (c) to reduce: 3c;
//   - directRecvReduceCopyDirectSend: the same and the reduced chunk
//     written to the output (c): 4c;
//   - n-2 steps directRecvCopyDirectSend: the chunk written by the peer
//     into the output (c) and read to forward it (c): 2c;
//   - directRecv: the last chunk written by the peer into the output: c.
//
// That is c(5(n-2)+6) while the GPU receives 2(n-1)c: about 2.57 bytes
// per byte received among 8 GPUs. The writes of this GPU's sends land in
// the next GPU's memory and are counted there, as its receives.
func RingHBMPerByte(n int) float64 {
	if n < 2 {
		return 0
	}
	return float64(5*(n-2)+6) / float64(2*(n-1))
}

// maxChannelsLaunched is NCCL's MAXCHANNELS (src/include/device.h).
const maxChannelsLaunched = 64

// KernelChannels is how many channels (thread blocks, one SM each) the
// kernel of a large ring or tree collective that e estimates runs: NCCL's
// topology search finds e.Channels, and ncclTopoPostset
// (src/graph/connect.cc) then duplicates every ring and tree ("Duplication
// should be complete now: nChannels = comm->nChannels =
// std::min(MAXCHANNELS, nChannels * 2)"); a collective launches all of
// the communicator's channels (src/enqueue.cc, topoGetAlgoInfo: nc =
// comm->nChannels) unless its size is below nc x threads x the
// protocol's thread threshold (under a MiB), which data-parallel gradient
// buckets are not. NVLS algorithms run their own channel count, kept as
// e.Channels.
func KernelChannels(e Estimate) int {
	switch e.Algorithm {
	case "ring", "tree", "pat":
		return min(maxChannelsLaunched, 2*e.Channels)
	}
	return e.Channels
}
