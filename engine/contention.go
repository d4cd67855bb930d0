package engine

import (
	"math"

	"placesim/collectives"
	"placesim/devices"
)

// resourceShare is what one bucket's all-reduce kernel holds of a GPU
// while it runs (CollectiveModel.Resources): a share of the SMs and a
// share of the device-memory bandwidth.
type resourceShare struct {
	sm, hbm float64
}

// stolen is how much longer a kernel takes that overlaps the all-reduce
// for ov seconds (collectives.Stolen): a compute-bound kernel (GEMM,
// convolution) loses the SMs' share, a memory-bound one the larger of the
// SMs' and the memory bandwidth's shares; byHBM says the memory's share
// decided.
func (s resourceShare) stolen(ov float64, memBound bool) (extra float64, byHBM bool) {
	if memBound && s.hbm > s.sm {
		return collectives.Stolen(ov, s.hbm), true
	}
	return collectives.Stolen(ov, s.sm), false
}

// memoryBound reports whether op's kernels on device d are bound by
// memory bandwidth rather than by the SMs' arithmetic
// (devices.MemoryBound: its roofline's bytes term is the larger).
func (u *unrolled) memoryBound(op int32, d int) bool {
	return devices.MemoryBound(&u.g.Ops[op], &u.c.Devices[d].Kind)
}

// resourceShares is, per bucket of sizes[b] bytes all-reduced in times[b]
// among the replicas on devs, the share of replica 0's GPU its NCCL
// kernel holds: one SM per channel of the kernel NCCL would launch for
// that size on that group (collectives.Time, KernelChannels, SMShare),
// at least floor (CollectiveModel.Contention), and
// RingHBMPerByte(n) bytes of device memory per byte received at the
// bucket's bus bandwidth (2(n-1)/n x bytes / time) against the GPU's
// memory bandwidth. The ring's traffic is counted for every algorithm
// (the hierarchical all-reduce's intra-node phases are rings). A group
// collectives.Time cannot analyse (it errs only on devices outside the
// cluster, which a validated plan never has) or a GPU whose SM count is
// not known holds only the floor's share of the SMs.
func (u *unrolled) resourceShares(times []float64, sizes []int64, devs []int, floor float64) []resourceShare {
	out := make([]resourceShare, len(times))
	n := len(devs)
	if n < 2 {
		return out
	}
	k := &u.c.Devices[devs[0]].Kind
	S, _ := devices.StreamingMultiprocessors(k)
	for b := range times {
		if times[b] <= 0 || sizes[b] <= 0 {
			continue
		}
		out[b].sm = floor
		if e, err := collectives.Time(u.c, devs, collectives.AllReduce, sizes[b]); err == nil {
			out[b].sm = math.Max(floor, collectives.SMShare(collectives.KernelChannels(e), S))
		}
		if k.MemBandwidth > 0 {
			bus := float64(2*(n-1)) / float64(n) * float64(sizes[b]) / times[b]
			out[b].hbm = collectives.RingHBMPerByte(n) * bus / k.MemBandwidth
		}
	}
	return out
}
