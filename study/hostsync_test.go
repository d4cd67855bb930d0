package study

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// TestHostProgramCost: each program's per-iteration costs in closed form
// from its parts: fairseq's gradient division is one elementwise pass per
// update op's gradient on any number of GPUs, and on n > 1 GPUs the
// all_gather_list (n ranks' host work and a ring all-gather's n-1 steps)
// and the GPU's wait for the host to issue the division's kernels; the
// ConvNets trainer adds only the loss's all-reduce (2(n-1) ring steps)
// and its division, on n > 1 GPUs.
func TestHostProgramCost(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	g, err := LoadWorkload("zoo:transformer?layers=2&hidden=256&heads=4&ff=1024&vocab=1000&seq=16&training=true&batch=8")
	if err != nil {
		t.Fatal(err)
	}
	k, err := devices.KindByName("V100-16GB")
	if err != nil {
		t.Fatal(err)
	}
	var pass float64
	var gpu []float64
	for i := range g.Ops {
		if o := &g.Ops[i]; o.Role == workloads.Update && o.GradBytes > 0 {
			x, err := devices.GradientPassTime(o.GradBytes, &k)
			if err != nil {
				t.Fatal(err)
			}
			pass += x
			gpu = append(gpu, x)
		}
	}
	if len(gpu) == 0 || !(pass > 0) {
		t.Fatalf("%d gradients, pass %g s", len(gpu), pass)
	}
	fair, conv := HostPrograms["fairseq"], HostPrograms["dle-convnets"]
	one, err := fair.Cost(g, &k, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbsOrRel(one.GradientPassGPU, pass, 0, tol) || one.GatherList != 0 || one.IssueWait != 0 || one.ReduceLoss != 0 {
		t.Errorf("fairseq on 1 GPU: %+v, want only the gradient pass %g s", one, pass)
	}
	eight, err := fair.Cost(g, &k, 8)
	if err != nil {
		t.Fatal(err)
	}
	wantGather := 8*devices.HostGatherListPerRank + engine.NCCLRingBaseLatency + 7*engine.NCCLRingStepLatency
	wantWait := devices.HostIssuedLoop(gpu, devices.HostEagerOpTime) - pass
	if !scalar.EqualWithinAbsOrRel(eight.GatherList, wantGather, 0, tol) || !scalar.EqualWithinAbsOrRel(eight.IssueWait, wantWait, 0, tol) ||
		!scalar.EqualWithinAbsOrRel(eight.GradientPassGPU, pass, 0, tol) || eight.ReduceLoss != 0 {
		t.Errorf("fairseq on 8 GPUs: %+v, want gather %g s, wait %g s, pass %g s", eight, wantGather, wantWait, pass)
	}
	if !(eight.IssueWait >= 0) || !scalar.EqualWithinAbsOrRel(eight.Total(), pass+wantGather+wantWait, 0, tol) {
		t.Errorf("fairseq on 8 GPUs: wait %g s, total %g s", eight.IssueWait, eight.Total())
	}
	// ConvNets on an FP32 model without batch norm: zero_grad's pass on
	// any GPU count, the loss's two small kernels on more than one
	var zero float64
	for _, x := range gpu {
		zero += x
	}
	c1, _ := conv.Cost(g, &k, 1)
	if !scalar.EqualWithinAbsOrRel(c1.GradientPassGPU, zero, 0, tol) || c1.Total() != c1.GradientPassGPU {
		t.Errorf("ConvNets on 1 GPU: %+v, want zero_grad's pass %g s only", c1, zero)
	}
	c4, _ := conv.Cost(g, &k, 4)
	scalarPass, _ := devices.GradientPassTime(4, &k)
	if !scalar.EqualWithinAbsOrRel(c4.ReduceLoss, 2*scalarPass, 0, tol) || c4.BufferBroadcast != 0 || c4.OptimizerIssueWait != 0 {
		t.Errorf("ConvNets on 4 GPUs: %+v, want the loss's two kernels %g s and no buffers", c4, 2*scalarPass)
	}
	if _, err := fair.Cost(g, &k, 0); err == nil {
		t.Error("0 GPUs: no error")
	}
}

// TestHostProgramConvNetsAMP: under AMP the ConvNets trainer's SGD and
// zero_grad kernels (ResNet-50: 55 weight-decayed tensors x 5, 106
// batch-norm tensors x 4 = 699, as scripts/sgd_overhead.py counts them)
// are issued after the loss scaler's read, so the GPU waits at least
// 699 host issues less the simulated update ops, and at most that plus
// the kernels' own time; on 8 GPUs DDP broadcasts the 53 batch norms'
// buffers (running mean and variance, 26,560 channels x 2, and 53
// counters) before the forward, on one GPU not.
func TestHostProgramConvNetsAMP(t *testing.T) {
	t.Parallel()
	g, k, u := resnetAMPUpdates(t)
	updates, passes := u.updates, u.passes
	if u.tensors != 161 || u.norms != 106 || u.normBytes != 2*26560*4 {
		t.Fatalf("%d tensors, %d batch-norm tensors of %d bytes: want ResNet-50's 161, 106, %d", u.tensors, u.norms, u.normBytes, 2*26560*4)
	}
	conv := HostPrograms["dle-convnets"]
	one, err := conv.Cost(g, &k, 1)
	if err != nil {
		t.Fatal(err)
	}
	lo := 699*devices.HostOptimizerKernelTime - updates
	hi := lo + passes
	if !(one.OptimizerIssueWait >= lo-1e-12 && one.OptimizerIssueWait <= hi) || one.BufferBroadcast != 0 || one.GradientPassGPU != 0 {
		t.Errorf("1 GPU: %+v, want an issue wait in [%g, %g] s and nothing else", one, lo, hi)
	}
	eight, _ := conv.Cost(g, &k, 8)
	if !(eight.BufferBroadcast > 0) || eight.OptimizerIssueWait != one.OptimizerIssueWait {
		t.Errorf("8 GPUs: %+v, want the buffers' broadcast and the same issue wait as on 1", eight)
	}
}

// TestHostProgramBucket: fairseq's rows all-reduce in apex DDP's buckets
// of 10,000,000 FP32 gradients; a row without a program or with a program
// that keeps PyTorch DDP's default uses 25 MiB.
func TestHostProgramBucket(t *testing.T) {
	t.Parallel()
	fair := HostPrograms["fairseq"]
	conv := HostPrograms["dle-convnets"]
	var none *HostProgram
	if got := fair.bucketBytes(); got != 40_000_000 {
		t.Errorf("fairseq: %d bytes, want 40,000,000", got)
	}
	if got := conv.bucketBytes(); got != DDPBucketBytes {
		t.Errorf("dle-convnets: %d bytes, want DDP's %d", got, DDPBucketBytes)
	}
	if got := none.bucketBytes(); got != DDPBucketBytes {
		t.Errorf("no program: %d bytes, want DDP's %d", got, DDPBucketBytes)
	}
	pt := HostPrograms["dle-pt-bert"]
	if got := pt.bucketBytes(); got != 0 {
		t.Errorf("dle-pt-bert: %d bytes, want 0 (one bucket: DDP's cap is the GPU's memory)", got)
	}
}

// TestHostProgramAllReduce: a program's own all-reduce on its framework's
// model: NVIDIA's PyTorch BERT divides its one bucket of gradient views
// once (DDP's reducer), twice with accumulation (the program's hook and
// allreduce_hook), copies nothing and carries FP16 gradients under
// --fp16; NVIDIA's TensorFlow BERTs go through Horovod (a copy into the
// fusion buffer, the 1/size scale and a copy out) with FP16 compression
// under mixed precision (a cast each way, 1.5 passes of the FP16 bytes),
// TensorFlow 2 dividing the FP32 accumulated gradients by the steps first
// (2 passes of the FP16 bytes, 1 of FP32's); a program without its own
// keeps the model as it is.
func TestHostProgramAllReduce(t *testing.T) {
	t.Parallel()
	ddp, nccl := engine.PyTorchDDPModel(), engine.NCCLModel()
	pt, tf, tf2, fair := HostPrograms["dle-pt-bert"], HostPrograms["dle-tf-bert"], HostPrograms["dle-tf2-bert"], HostPrograms["fairseq"]
	for _, tc := range []struct {
		name         string
		p            *HostProgram
		base         *engine.CollectiveModel
		prec         workloads.Precision
		k            int
		pack, unpack float64
		wire         int
	}{
		{"pt-bert tf32", &pt, ddp, workloads.PrecisionTF32, 1, 1, 0, 0},
		{"pt-bert tf32 accumulated", &pt, ddp, workloads.PrecisionTF32, 64, 2, 0, 0},
		{"pt-bert fp16", &pt, ddp, workloads.PrecisionAMPFP16, 1, 1, 0, 2},
		{"pt-bert fp16 accumulated", &pt, ddp, workloads.PrecisionAMPFP16, 32, 2, 0, 2},
		{"tf-bert fp32", &tf, nccl, workloads.PrecisionFP32, 256, 1, 2, 0},
		{"tf-bert amp", &tf, nccl, workloads.PrecisionAMPFP16, 256, 2.5, 3.5, 2},
		{"tf2-bert tf32", &tf2, nccl, workloads.PrecisionTF32, 1, 1, 2, 0},
		{"tf2-bert tf32 accumulated", &tf2, nccl, workloads.PrecisionTF32, 64, 2, 2, 0},
		{"tf2-bert amp accumulated", &tf2, nccl, workloads.PrecisionAMPFP16, 32, 4.5, 3.5, 2},
		{"fairseq keeps DDP's", &fair, ddp, workloads.PrecisionAMPFP16, 1, ddp.PackPasses, ddp.UnpackPasses, 0},
	} {
		m := tc.p.collective(tc.base, tc.prec, tc.k)
		if w := tc.p.wireBytes(tc.prec); m.PackPasses != tc.pack || m.UnpackPasses != tc.unpack || w != tc.wire {
			t.Errorf("%s: pack %g, unpack %g, wire bytes %d; want %g, %g, %d", tc.name, m.PackPasses, m.UnpackPasses, w, tc.pack, tc.unpack, tc.wire)
		}
		if m.BaseLatency != tc.base.BaseLatency || m.SpeedSpread != tc.base.SpeedSpread || m.Resources != tc.base.Resources {
			t.Errorf("%s: %+v does not keep its framework's latencies, speed spread and resources (%+v)", tc.name, m, tc.base)
		}
	}
	if ddp.PackPasses != 2 {
		t.Errorf("the framework's model changed: %+v", ddp)
	}
}

// TestHostProgramUnscale: under mixed precision both programs step
// through GradScaler, whose unscale_ is one pass over all the gradients
// (priced as one elementwise pass over their bytes) on any number of
// GPUs; fairseq then waits for found_inf's blocking read, the ConvNets
// trainer's read is already its optimizer's issue wait; FP32 runs have no
// scaler.
func TestHostProgramUnscale(t *testing.T) {
	t.Parallel()
	k, err := devices.KindByName("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	const spec = "zoo:transformer?layers=2&hidden=256&heads=4&ff=1024&vocab=1000&seq=16&training=true&batch=8"
	for _, tc := range []struct {
		program, workload string
		read              float64
		amp               bool
	}{
		{"fairseq", spec + "&precision=amp-fp16", devices.HostBlockingRead, true},
		{"fairseq", spec, 0, false},
		{"dle-convnets", "zoo:resnet50?training=true&batch=8&precision=amp-fp16&framework=pytorch", 0, true},
	} {
		t.Run(tc.program+"/"+tc.workload, func(t *testing.T) {
			g, err := LoadWorkload(tc.workload)
			if err != nil {
				t.Fatal(err)
			}
			var grads int64
			for i := range g.Ops {
				if o := &g.Ops[i]; o.Role == workloads.Update && o.GradBytes > 0 {
					grads += o.GradBytes
				}
			}
			pass, err := devices.GradientPassTime(grads, &k)
			if err != nil {
				t.Fatal(err)
			}
			want := 0.0
			if tc.amp {
				want = pass + tc.read
			}
			for _, n := range []int{1, 8} {
				h, err := HostPrograms[tc.program].Cost(g, &k, n)
				if err != nil {
					t.Fatal(err)
				}
				if !scalar.EqualWithinAbsOrRel(h.Unscale, want, 0, 1e-12) {
					t.Errorf("%d GPUs: unscale %g s, want %g s (pass over %d bytes %g s + read %g s)", n, h.Unscale, want, grads, pass, tc.read)
				}
			}
		})
	}
}

// TestImageBatchWork: the ConvNets program's GPU work on a step's batch
// (dleConvNetsBatch) in closed form on one GPU's share, 256 images of
// 3 x 224 x 224 (N elements) and 256 x 1000 one-hot targets (M): the
// uint8 -> FP32 conversion (5 bytes per element), sub_ and div_ (8 each),
// the targets' zeros and scatter_ (4 each), mixup's two scalings and
// gather (8 each) and sum (12) of both the batch and the targets, and
// under AMP autocast's FP16 cast of the batch (6): 63 N + 44 M bytes,
// each kernel priced by devices.OpTime. 512 images on 2 GPUs cost what
// 256 on one do; FP32 drops the cast; fairseq has no such work, and a
// workload without images none either.
func TestImageBatchWork(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	k, err := devices.KindByName("A100-80GB")
	if err != nil {
		t.Fatal(err)
	}
	const n, m = 256 * 3 * 224 * 224, 256 * 1000
	want := func(amp bool) (float64, int64) {
		ks := []struct {
			typ          string
			elems, bytes int64
		}{{"cast", n, 5}, {"sub", n, 8}, {"div", n, 8}, {"fill", m, 4}, {"scatter", m, 4},
			{"mul", n, 8}, {"gather", n, 8}, {"mul", n, 8}, {"add", n, 12},
			{"mul", m, 8}, {"gather", m, 8}, {"mul", m, 8}, {"add", m, 12}}
		if amp {
			ks = append(ks, struct {
				typ          string
				elems, bytes int64
			}{"cast", n, 6})
		}
		var t float64
		var bytes int64
		for _, kn := range ks {
			op := workloads.Op{Type: kn.typ, Role: workloads.Forward, Precision: workloads.FP32, BytesAccessed: kn.elems * kn.bytes, OutputBytes: kn.elems * 4, FLOPs: float64(kn.elems)}
			if kn.typ == "gather" {
				op.FLOPs = 0
			}
			d, _ := devices.OpTime(&op, &k)
			t += d
			bytes += kn.elems * kn.bytes
		}
		return t, bytes
	}
	conv := HostPrograms["dle-convnets"]
	for _, c := range []struct {
		spec string
		gpus int
		amp  bool
	}{{"zoo:resnet50?training=true&batch=512&precision=amp-fp16&framework=pytorch", 2, true},
		{"zoo:resnet50?training=true&batch=256&precision=amp-fp16&framework=pytorch", 1, true},
		{"zoo:resnet50?training=true&batch=256&framework=pytorch", 1, false}} {
		g, err := LoadWorkload(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := conv.ImageBatch.Time(g, &k, c.gpus)
		if err != nil {
			t.Fatal(err)
		}
		w, bytes := want(c.amp)
		if wb := int64(63*n + 44*m); c.amp && bytes != wb {
			t.Fatalf("kernel list moves %d bytes, want 63 N + 44 M = %d", bytes, wb)
		}
		if !scalar.EqualWithinRel(got, w, tol) || !(got >= float64(bytes)/k.MemBandwidth) {
			t.Errorf("%s on %d GPU(s): %g s, want %g s (at least %d bytes at the %g B/s peak)", c.spec, c.gpus, got, w, bytes, k.MemBandwidth)
		}
		h, err := conv.Cost(g, &k, c.gpus)
		if err != nil || !scalar.EqualWithinRel(h.ImageBatch, w, tol) {
			t.Errorf("%s: dle-convnets cost %+v (%v), want its image batch %g s", c.spec, h, err, w)
		}
		if f, _ := HostPrograms["fairseq"].Cost(g, &k, c.gpus); f.ImageBatch != 0 {
			t.Errorf("%s: fairseq image batch %g s, want none", c.spec, f.ImageBatch)
		}
	}
	tr, err := LoadWorkload("zoo:transformer?layers=2&hidden=256&heads=4&ff=1024&vocab=1000&seq=16&training=true&batch=8")
	if err != nil {
		t.Fatal(err)
	}
	if x, err := conv.ImageBatch.Time(tr, &k, 1); x != 0 || err != nil {
		t.Errorf("transformer: image batch %g s (%v), want 0", x, err)
	}
	if _, err := conv.ImageBatch.Time(tr, &k, 3); err == nil {
		t.Error("batch 8 on 3 GPUs: no error")
	}
}

// TestHostProgramHostScale: host work on a slower core takes hostScale
// times the measured host times: under AMP the ConvNets trainer's 699
// SGD and zero_grad kernels are issued 1.5 x 6.45 us apart, so the GPU's
// wait lies in [699 x 1.5 x issue - updates, that + the kernels' time]
// and exceeds the wait at the measured pace by at least 699 x 0.5 x
// issue less the kernels' time; a scale below 1 is an error.
func TestHostProgramHostScale(t *testing.T) {
	t.Parallel()
	g, k, u := resnetAMPUpdates(t)
	updates, passes := u.updates, u.passes
	conv := HostPrograms["dle-convnets"]
	one, err := conv.CostAtHost(g, &k, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := conv.CostAtHost(g, &k, 8, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	lo := 699*1.5*devices.HostOptimizerKernelTime - updates
	if !(slow.OptimizerIssueWait >= lo-1e-12 && slow.OptimizerIssueWait <= lo+passes) || slow.HostScale != 1.5 || one.HostScale != 1 {
		t.Errorf("x1.5: issue wait %g s, scale %g; want in [%g, %g] s, 1.5 (x1: scale %g)", slow.OptimizerIssueWait, slow.HostScale, lo, lo+passes, one.HostScale)
	}
	if d := slow.OptimizerIssueWait - one.OptimizerIssueWait; !(d >= 699*0.5*devices.HostOptimizerKernelTime-passes) {
		t.Errorf("x1.5 waits %g s more than x1, want at least %g s", d, 699*0.5*devices.HostOptimizerKernelTime-passes)
	}
	if slow.ImageBatch != one.ImageBatch || slow.BufferBroadcast != one.BufferBroadcast {
		t.Errorf("GPU work moved with the host's pace: %+v vs %+v", slow, one)
	}
	if _, err := conv.CostAtHost(g, &k, 8, 0.5); err == nil || !strings.Contains(err.Error(), "host work scale") {
		t.Errorf("scale 0.5: error %v, want one naming the host work scale", err)
	}
}

// resnetUpdates is what ResNet-50's update ops (the trainer's SGD
// tensors) add up to on one GPU kind: their simulated time, five
// gradient passes each (the kernels the trainer issues per tensor, at
// most), the tensors and the batch-norm tensors with their bytes.
type resnetUpdates struct {
	updates, passes float64
	tensors, norms  int
	normBytes       int64
}

// resnetAMPUpdates loads ResNet-50 under AMP in the pytorch profile and
// sums its update ops on an A100 80 GB (TestHostProgramConvNetsAMP,
// TestHostProgramHostScale).
func resnetAMPUpdates(t *testing.T) (*workloads.Graph, devices.Kind, resnetUpdates) {
	t.Helper()
	g, err := LoadWorkload("zoo:resnet50?training=true&batch=8&precision=amp-fp16&framework=pytorch")
	if err != nil {
		t.Fatal(err)
	}
	k, err := devices.KindByName("A100-80GB")
	if err != nil {
		t.Fatal(err)
	}
	var r resnetUpdates
	for i := range g.Ops {
		o := &g.Ops[i]
		if o.Role != workloads.Update || o.GradBytes <= 0 {
			continue
		}
		r.tensors++
		u, err := devices.OpTime(o, &k)
		if err != nil {
			t.Fatal(err)
		}
		r.updates += u
		p, err := devices.GradientPassTime(o.GradBytes, &k)
		if err != nil {
			t.Fatal(err)
		}
		r.passes += 5 * p
		if strings.Contains(o.Name, "batchnorm") {
			r.norms++
			r.normBytes += o.GradBytes
		}
	}
	return g, k, r
}
