package engine

import (
	"fmt"
	"math"
	"strings"

	"placesim/collectives"
	"placesim/devices"
	"placesim/links"
	"placesim/workloads"
)

// CollectiveModel is what a data-parallel all-reduce costs beyond its
// chunks' link transfers, as a framework runs it over NCCL: the library's
// latencies, the framework's copies of the gradients on the compute
// stream, and the slowdown of the compute that the collective overlaps.
// The zero value (or a nil model) is the ideal collective: link time only.
type CollectiveModel struct {
	// Name says which model this is (CollectiveLink, CollectiveNCCL,
	// CollectivePyTorchDDP, or a name of the caller's); it is reported,
	// never read by the engine.
	Name string `json:"name,omitempty"`
	// BaseLatency is the fixed latency of one collective in seconds
	// (kernel launch, proxy and channel set-up): NCCL's tuning model,
	// src/graph/tuning.cc, baseLat of the ring with the Simple protocol.
	BaseLatency float64 `json:"baseLatency,omitempty"`
	// StepLatency is the latency of one step of a ring (one chunk to the
	// next GPU) in seconds, the route's own link latency included: NCCL's
	// hwLat of the ring with the Simple protocol over NVLink. A step whose
	// route's latency is larger keeps the route's.
	StepLatency float64 `json:"stepLatency,omitempty"`
	// PackPasses is how many times each gradient's all-reduced bytes are
	// read and written on the compute stream before its bucket's
	// all-reduce (copy into the bucket, then each further pass a
	// whole-bucket kernel such as the division by the world size);
	// UnpackPasses after it (copy of the reduced bucket back into the
	// gradients), before the update. A fraction is a pass over that share
	// of the bytes, one kernel: a cast of FP32 gradients to the FP16 ones
	// an all-reduce carries reads 2 and writes 1 of its bytes, 1.5 passes.
	PackPasses   float64 `json:"packPasses,omitempty"`
	UnpackPasses float64 `json:"unpackPasses,omitempty"`
	// Contention is the fraction by which compute slows while an
	// all-reduce runs beside it (NCCL's kernels hold SMs and HBM
	// bandwidth): compute overlapped by an all-reduce of modelled time T
	// takes Contention x T longer. Only with DataParallel.Overlap.
	Contention float64 `json:"contention,omitempty"`
	// Resources charges the slowdown of overlapped compute from what the
	// collective's kernel holds, Contention then being its floor: each
	// bucket's NCCL kernel holds one SM per channel it launches
	// (collectives.KernelChannels of the collective collectives.Time
	// finds for the bucket), which every overlapped kernel loses
	// (collectives.SMShare) when that share is above Contention (the
	// measured average, which includes what the SM count misses: a GEMM's
	// waves re-quantised on fewer SMs, caches, power), and moves
	// collectives.RingHBMPerByte bytes of device memory per byte it
	// receives at the bucket's bus bandwidth, which a memory-bound kernel
	// (devices.MemoryBound: its roofline's bytes term the larger; with a
	// measured time, every kernel class but GEMMs and convolutions) loses
	// when that share is the larger. Only with DataParallel.Overlap.
	Resources bool `json:"resources,omitempty"`
	// SpeedSpread is the relative standard deviation of the speed of
	// GPUs of one kind (manufacturing and power-management variability):
	// a synchronous data-parallel step runs at the pace of its slowest
	// replica, whose compute takes SpeedSpread x E[max of n standard
	// normals] longer than a median GPU's (see slowestReplica). Only with
	// more than one replica.
	SpeedSpread float64 `json:"speedSpread,omitempty"`
	// LinkEfficiency moves each chunk of a ring or tree step at the
	// share of its route's slowest link that NCCL's kernels reach over
	// it (collectives.LinkEfficiency: 20 of NVLink's 25 GB/s per link on
	// Volta and Ampere, 12 of PCIe 3.0's 15.75): the chunk holds its
	// links as long as chunk/eff bytes would (wireBytes); without it a
	// chunk moves at the link's raw bandwidth.
	LinkEfficiency bool `json:"linkEfficiency,omitempty"`
}

// Figures of the NCCL and PyTorch models.
const (
	// NCCLRingBaseLatency and NCCLRingStepLatency: NCCL's latency model
	// (src/graph/tuning.cc, NCCL 2.x: baseLat ring/Simple 8.4 us; hwLat
	// NVLink ring/Simple 3.4 us per step), so that an 8-GPU ring
	// all-reduce costs 8.4 + 14 x 3.4 = 56 us beyond its bytes.
	NCCLRingBaseLatency = 8.4e-6
	NCCLRingStepLatency = 3.4e-6
	// OverlapContention: compute overlapped with collectives slows by
	// 18.9 % on average (at most 40 %) against the same compute alone, on
	// A100, H100, MI250 and MI210 training GPT and LLaMA models
	// ("Characterizing Compute-Communication Overlap in GPU-Accelerated
	// Distributed Deep Learning: Performance and Power Implications",
	// arXiv 2507.03114, 2025, abstract).
	OverlapContention = 0.189
	// GPUSpeedSpread: GPUs of one SKU differ in speed by 8 % on average
	// (at most 22 %) under the same application (Sinha et al., "Not All
	// GPUs Are Created Equal: Characterizing Variability in Large-Scale,
	// Accelerator-Rich Systems", SC22 / arXiv 2208.11035, abstract: over
	// 90 % of the GPUs of five clusters; its artifact,
	// hal-uw/gpu_variability_sc22_artifact README, lists SGEMM, ResNet-50,
	// BERT, LAMMPS and PageRank on V100s and SGEMM on MI60s: no A100 or
	// H100 was measured, and the V100 figure is carried onto them for want
	// of one). Read as the spread
	// between the slowest and the fastest non-outlier GPU (a box plot's
	// whiskers, about 5.4 standard deviations of a normal), the standard
	// deviation is 8 % / 5.4 = 1.5 %: the slowest of 8 GPUs is then 2.1 %
	// slower than the median one a 1-GPU measurement sees.
	GPUSpeedSpread = 0.08 / 5.4
)

// Names of the built-in collective models (CollectiveByName).
const (
	// CollectiveLink is the ideal collective: its chunks' link time only,
	// no library latency, no copies, no contention (the zero model).
	CollectiveLink = "link"
	// CollectiveNCCL is NCCLModel.
	CollectiveNCCL = "nccl"
	// CollectivePyTorchDDP is PyTorchDDPModel.
	CollectivePyTorchDDP = "pytorch-ddp"
)

// CollectiveNames lists the built-in collective models.
func CollectiveNames() []string {
	return []string{CollectiveLink, CollectiveNCCL, CollectivePyTorchDDP}
}

// CollectiveByName returns a new built-in collective model by name; an
// unknown name is an error wrapping ErrInvalidPlan that lists the valid
// ones.
func CollectiveByName(name string) (*CollectiveModel, error) {
	switch name {
	case CollectiveLink:
		return &CollectiveModel{Name: CollectiveLink}, nil
	case CollectiveNCCL:
		return NCCLModel(), nil
	case CollectivePyTorchDDP:
		return PyTorchDDPModel(), nil
	}
	return nil, fmt.Errorf("%w: collective model %q (valid: %s)", ErrInvalidPlan, name, strings.Join(CollectiveNames(), ", "))
}

// NCCLModel is a collective run by NCCL with no framework copies: its
// latencies and, when it overlaps compute, the SMs and memory bandwidth
// its kernel takes from the compute (Resources).
func NCCLModel() *CollectiveModel {
	return &CollectiveModel{Name: CollectiveNCCL, BaseLatency: NCCLRingBaseLatency, StepLatency: NCCLRingStepLatency, Contention: OverlapContention, Resources: true,
		SpeedSpread: GPUSpeedSpread, LinkEfficiency: true}
}

// PyTorchDDPModel is PyTorch DistributedDataParallel over NCCL with its
// defaults (gradient_as_bucket_view=False): each gradient is copied into
// its flat bucket as its autograd hook fires, the bucket is divided by the
// world size, all-reduced on NCCL's stream, and copied back into the
// gradients before the optimizer runs (torch/csrc/distributed/c10d/
// reducer.cpp; the DDP documentation of gradient_as_bucket_view: "when
// set to False, gradients are copied to the bucket"). apex's
// DistributedDataParallel (flatten, all-reduce, scale, unflatten) makes
// the same three passes.
func PyTorchDDPModel() *CollectiveModel {
	m := NCCLModel()
	m.Name = CollectivePyTorchDDP
	m.PackPasses, m.UnpackPasses = 2, 1
	return m
}

// validate checks the model's fields.
func (m *CollectiveModel) validate() error {
	if m == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
		max  float64
	}{{"baseLatency", m.BaseLatency, 1}, {"stepLatency", m.StepLatency, 1}, {"contention", m.Contention, 10}, {"speedSpread", m.SpeedSpread, 1},
		{"packPasses", m.PackPasses, 16}, {"unpackPasses", m.UnpackPasses, 16}} {
		if !(f.v >= 0 && f.v <= f.max) {
			return fmt.Errorf("%w: field dataParallel.collective.%s = %g (valid range: [0, %g])", ErrInvalidPlan, f.name, f.v, f.max)
		}
	}
	return nil
}

// collective is the plan's collective model (nil: ideal).
func (u *unrolled) collective() *CollectiveModel {
	if dp := u.plan.DataParallel; dp != nil {
		return dp.Collective
	}
	return nil
}

// name is the model's name for the statistics: link for nil (the ideal
// collective), custom for a model without one.
func (m *CollectiveModel) name() string {
	switch {
	case m == nil:
		return CollectiveLink
	case m.Name == "":
		return "custom"
	}
	return m.Name
}

// stepCost is the latency a ring step from device a to device b adds to
// its link transfer: the model's step latency less the route's own.
func stepCost(c *devices.Cluster, m *CollectiveModel, a, b int) float64 {
	if m == nil || m.StepLatency == 0 {
		return 0
	}
	var lat float64
	top := c.Topology
	for _, lid := range c.Route(a, b) {
		lat += top.Links[lid].Latency
	}
	return math.Max(0, m.StepLatency-lat)
}

// wireBytes is what a collective step's chunk of bytes from device a to
// device b occupies its links for, in bytes at their bandwidth: the
// chunk itself, or with the model's LinkEfficiency the chunk over NCCL's
// usable share of the route's slowest link (collectives.LinkEfficiency),
// so that the chunk moves at eff x the link's bandwidth and rings that
// share a link (ringChannels) share it at that rate whatever the order
// the link serves them in. The transfer, the link's byte count and the
// chunk's receive buffer carry these bytes (at most 1/0.76 of a chunk of
// a bucket: a few MiB at the peak).
func wireBytes(c *devices.Cluster, m *CollectiveModel, a, b int, chunk int64) int64 {
	if m == nil || !m.LinkEfficiency || chunk <= 0 {
		return chunk
	}
	top := c.Topology
	var slow *links.Link
	for _, lid := range c.Route(a, b) {
		if l := &top.Links[lid]; slow == nil || l.Bandwidth < slow.Bandwidth {
			slow = l
		}
	}
	if slow == nil {
		return chunk
	}
	eff := collectives.LinkEfficiency(c.Devices[a].Kind.Arch, slow.Family)
	if !(eff > 0 && eff < 1) {
		return chunk
	}
	return int64(math.Ceil(float64(chunk) / eff))
}

// copyTime is the compute-stream time of one pass over bytes of gradients
// on device d: a copy kernel reading and writing them (the device's
// elementwise row: streaming bandwidth plus launch overhead).
func (u *unrolled) copyTime(d int, bytes int64) float64 {
	op := workloads.Op{Name: "gradient copy", Type: "copy", Role: workloads.Backward, BytesAccessed: 2 * bytes}
	t, err := devices.OpTime(&op, &u.c.Devices[d].Kind)
	if err != nil {
		return 0 // a CPU-only op only errs; a copy is not
	}
	return t
}

// chargeCopies adds the model's pack passes to the backward nodes that
// produce bucket's gradients on every replica (a copy kernel per
// gradient, then a whole-bucket kernel per further pass on the node that
// completes the bucket), and returns the unpack time each replica spends
// after the all-reduce.
func (u *unrolled) chargeCopies(m *CollectiveModel, bucket []gradient, mb int, devs []int) []float64 {
	after := make([]float64, len(devs))
	if m == nil || (m.PackPasses == 0 && m.UnpackPasses == 0) {
		return after
	}
	var total int64
	for _, gr := range bucket {
		total += gr.bytes
	}
	last := bucket[len(bucket)-1].op
	for r, d := range devs {
		for _, gr := range bucket {
			x := u.node(gr.op, mb, r)
			if m.PackPasses > 0 {
				u.nodes[x].cost += u.passesTime(d, gr.bytes, math.Min(1, m.PackPasses))
			}
			after[r] += u.passesTime(d, gr.bytes, m.UnpackPasses)
		}
		if rest := m.PackPasses - 1; rest > 0 {
			u.nodes[u.node(last, mb, r)].cost += u.passesTime(d, total, rest)
		}
	}
	return after
}

// passesTime is the time of passes read-write passes over bytes on device
// d: a kernel per whole pass and one over the fraction left.
func (u *unrolled) passesTime(d int, bytes int64, passes float64) float64 {
	whole, frac := math.Modf(passes)
	t := whole * u.copyTime(d, bytes)
	if part := int64(math.Round(frac * float64(bytes))); part > 0 {
		t += u.copyTime(d, part)
	}
	return t
}

// contention charges the slowdown of the backward compute that each
// bucket's all-reduce overlaps (times[b] its modelled time, sizes[b] its
// bytes, among the replicas on devs), on every replica: NCCL runs one
// collective at a time on its stream, so bucket b's window opens when its
// last gradient is ready or the previous window closes, whichever is
// later, and lasts times[b]; each backward op of the stage (in backward
// order, on the compute timeline of its costs) takes its overlap with the
// windows times a share longer: Contention, or with Resources the share
// of the SMs or of the memory bandwidth the bucket's kernel holds
// (resourceShares). Compute after the backward (the update waits for the
// all-reduces) is not overlapped. It returns what each bucket charged one
// replica, by SMs and by memory bandwidth (a flat Contention counts as
// SMs).
func (u *unrolled) contention(m *CollectiveModel, st, mb int, buckets [][]gradient, times []float64, sizes []int64, devs []int) (sm, hbm []float64) {
	sm, hbm = make([]float64, len(buckets)), make([]float64, len(buckets))
	if m == nil || (m.Contention == 0 && !m.Resources) || !u.l.overlap {
		return sm, hbm
	}
	var shares []resourceShare
	if m.Resources {
		shares = u.resourceShares(times, sizes, devs, m.Contention)
	}
	bwd := u.bwdOps[st]
	end := make([]float64, len(bwd)) // compute timeline, replica 0
	pos := map[int32]int{}
	var t float64
	for i, v := range bwd {
		t += u.nodes[u.node(v, mb, 0)].cost
		end[i] = t
		pos[v] = i
	}
	extra := make([]float64, len(bwd))
	var memBound []bool
	if m.Resources {
		memBound = make([]bool, len(bwd))
		for i, v := range bwd {
			memBound[i] = u.memoryBound(v, devs[0])
		}
	}
	var open float64
	for b, bucket := range buckets {
		ready := end[pos[bucket[len(bucket)-1].op]]
		for _, gr := range bucket {
			ready = math.Max(ready, end[pos[gr.op]])
		}
		lo := math.Max(ready, open)
		hi := lo + times[b]
		open = hi
		for i := range bwd {
			start := 0.0
			if i > 0 {
				start = end[i-1]
			}
			ov := math.Min(hi, end[i]) - math.Max(lo, start)
			if ov <= 0 {
				continue
			}
			if !m.Resources {
				extra[i] += m.Contention * ov
				sm[b] += m.Contention * ov
				continue
			}
			x, byHBM := shares[b].stolen(ov, memBound[i])
			extra[i] += x
			if byHBM {
				hbm[b] += x
			} else {
				sm[b] += x
			}
		}
	}
	for i, v := range bwd {
		if extra[i] == 0 {
			continue
		}
		for r := 0; r < u.played; r++ {
			u.nodes[u.node(v, mb, r)].cost += extra[i]
		}
	}
	return sm, hbm
}
