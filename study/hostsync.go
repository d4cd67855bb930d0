package study

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// HostProgram is what a reference training program does each iteration
// besides the kernels of its model, read from its code: the GPU passes it
// makes over the gradients and the host work its GPUs wait for once a
// blocking read has synchronised them with the host. A validation row
// names its program (column program); the costs are added to the
// simulated iteration as parts of their own (HostCost).
type HostProgram struct {
	// Name is the program's name in a validation file.
	Name string
	// Source is the file and function the behaviour is read from.
	Source string
	// GradientDivide: the program divides every gradient tensor by the
	// batch's token count from Python after the backward, one in-place
	// kernel per tensor, on any number of GPUs (fairseq's DDPTrainer:
	// `for p in self.model.parameters(): p.grad /= grad_denom`).
	GradientDivide bool
	// GatherList: with more than one GPU the program gathers every rank's
	// logging outputs after the backward with a blocking all-gather read on
	// the host (fairseq's distributed_utils.all_gather_list), which makes
	// the host wait for the backward and the gradients' all-reduce; the
	// gradient division's kernels are then issued with the GPU idle.
	GatherList bool
	// ReduceLoss: with more than one GPU the program all-reduces the loss
	// for logging each iteration (DeepLearningExamples ConvNets,
	// training.py get_train_step: utils.reduce_tensor, a clone and a
	// division on the compute stream, the all-reduce on NCCL's stream
	// ahead of the gradients' buckets, read only after the step's
	// synchronisation): its two small kernels.
	ReduceLoss bool
	// ZeroGrad: the optimizer's zero_grad(set_to_none=False) zeroes every
	// gradient, one kernel per tensor, each iteration (PyTorch 1.9).
	ZeroGrad bool
	// ScaledSGD: under mixed precision the program steps
	// torch.optim.SGD through a GradScaler, whose step reads found_inf
	// (.item()) right before optimizer.step, so the optimizer's
	// per-tensor kernels (3 with momentum, one more where weight decay
	// applies: every tensor but the normalizations', optimizers.py
	// bn_weight_decay=False) and zero_grad's are issued with the GPU idle,
	// at the host's pace (devices.HostOptimizerKernelTime).
	ScaledSGD bool
	// BroadcastBuffers: with more than one GPU, PyTorch DDP
	// (broadcast_buffers=True, its default, which the program keeps)
	// broadcasts the module's buffers from rank 0 before every forward
	// (DistributedDataParallel._sync_params: one coalesced NCCL broadcast,
	// then each buffer copied back from the flat tensor on the other
	// ranks, on the compute stream before the forward): batch norm's
	// running mean and variance and its batch counter.
	BroadcastBuffers bool
	// Unscale: under mixed precision the program steps its optimizer
	// through torch.cuda.amp.GradScaler, whose step first unscales the
	// gradients (GradScaler.unscale_:
	// torch._amp_foreach_non_finite_check_and_unscale_, a multi-tensor
	// kernel that reads and writes every FP32 gradient once and records
	// non-finite values in found_inf) and then reads found_inf on the
	// host (`found_inf.item()` in GradScaler._maybe_opt_step) before the
	// optimizer runs (torch/cuda/amp/grad_scaler.py, PyTorch 1.9 to
	// 1.13): one pass over the gradients and one blocking read, on any
	// number of GPUs.
	Unscale bool
	// TokenBatchMultiple: the program batches sentences by a token budget
	// per GPU and cuts every batch to a multiple of this many sentences
	// (fairseq's make_batches with train.py's required_batch_size_multiple
	// = 8), so on more than one GPU the step waits for the GPU whose batch
	// kept the most padded tokens (SlowestBatchFraction); 0: fixed-size
	// batches.
	TokenBatchMultiple int
	// BucketElements is the data-parallel wrapper's gradient bucket in
	// elements when it is not PyTorch DDP's 25 MiB (DDPBucketBytes): apex's
	// DistributedDataParallel closes a bucket once it holds message_size =
	// 10,000,000 elements (apex/parallel/distributed.py, its default,
	// which fairseq's DDPTrainer keeps); 0 keeps DDP's.
	BucketElements int64
	// MicroBatchWords is the program's passes over every gradient, in
	// gradient-sized words, on each micro-batch of gradient accumulation
	// (the row's accumulation column) beyond the in-place add's 3, and
	// MixedMicroBatchWords those it adds under mixed precision
	// (AccumulationWords); negative where the program's add itself is
	// narrower (dle-pt-bert's FP16 .grad under --fp16: -1.5).
	MicroBatchWords, MixedMicroBatchWords float64
	// FlagAllreduceCycle is, for a program that all-reduces a flag through
	// Horovod at the end of every micro-batch of gradient accumulation
	// under mixed precision, the cycle of Horovod's background thread in
	// seconds (MicroBatchSync); 0: no such all-reduce.
	FlagAllreduceCycle float64
	// SessionRunGap is what each of the program's iterations (each
	// micro-batch's, under gradient accumulation) takes beyond its
	// kernels on the host's side, in seconds, scaled like the program's
	// other host work (CostAtHost); 0: none. The GPU waits for it once an
	// iteration (HostCost.SessionRun, AccumulatedStep.Run). NVIDIA's
	// TensorFlow 1 BERT (TF1BERTSessionRunGap) runs every micro-batch as
	// a session.run of its own through tf.estimator (run_pretraining.py
	// estimator.train; optimization.py counts the micro-batches in
	// local_step and applies the gradients in a tf.cond every k runs),
	// and every run fetches the micro-batch's losses to the host
	// (run_pretraining.py _LogSessionRunHook.before_run: 'total_loss:0',
	// 'mlm_loss:0', 'nsp_loss:0' and more, on every run): the run ends
	// when the host holds them, the GPU's queue drained, and the next
	// run's kernels start only after the host's work between the two
	// (the session's hooks in Python, the executor's pass over the
	// graph's nodes outside the XLA clusters, the input iterator's next
	// batch, the first launches). The parts of that work are not
	// measured apart for this graph in any source, so the value is
	// calibrated on a validation row, not derived.
	SessionRunGap float64
	// Input is the program's CPU input pipeline (InputPipeline); nil: the
	// program's data need no host work per image (synthetic data, a GPU
	// decoder).
	Input *InputPipeline
	// ImageBatch is the GPU work the program does on each step's image
	// batch before the model's first kernel (ImageBatchWork); nil: none.
	ImageBatch *ImageBatchWork
	// AllReduce is how the program all-reduces its gradients on more than
	// one GPU where that departs from its framework's default
	// (FrameworkCollective on DDPBucketBytes or BucketElements buckets);
	// nil: the default.
	AllReduce *ProgramAllReduce
}

// ProgramAllReduce is a program's own data-parallel all-reduce: how its
// gradients are bucketed, what the all-reduce carries and the passes the
// program and its library make over them on the GPU around it. Passes
// count reads and writes of the all-reduced bytes
// (engine.CollectiveModel.PackPasses): a pass over FP32 gradients whose
// FP16 copies are all-reduced is 2, a cast from one to the other 1.5.
type ProgramAllReduce struct {
	// Wrapper is what all-reduces (reported with the collective model).
	Wrapper string
	// OneBucket: every gradient in one bucket, all-reduced once the whole
	// backward is done.
	OneBucket bool
	// MixedFP16: under mixed precision the all-reduce carries FP16
	// gradients, half the bytes of the graph's FP32 ones
	// (engine.DataParallel.WireBytes 2).
	MixedFP16 bool
	// Pack and Unpack are the passes before and after each all-reduce
	// with FP32 (or TF32) gradients, MixedPack and MixedUnpack under mixed
	// precision; AccumulationPack and MixedAccumulationPack are those the
	// program adds before it when it accumulates gradients over more than
	// one micro-batch.
	Pack, Unpack, MixedPack, MixedUnpack, AccumulationPack, MixedAccumulationPack float64
}

// collective is the all-reduce model of program p on base, its
// framework's (FrameworkCollective), at precision prec with k
// micro-batches an update: base itself when p has no AllReduce.
func (p *HostProgram) collective(base *engine.CollectiveModel, prec workloads.Precision, k int) *engine.CollectiveModel {
	if p == nil || p.AllReduce == nil {
		return base
	}
	a := p.AllReduce
	m := *base
	m.Name = base.Name + ", " + a.Wrapper
	m.PackPasses, m.UnpackPasses = a.Pack, a.Unpack
	acc := a.AccumulationPack
	if prec.Mixed() {
		m.PackPasses, m.UnpackPasses, acc = a.MixedPack, a.MixedUnpack, a.MixedAccumulationPack
	}
	if k > 1 {
		m.PackPasses += acc
	}
	return &m
}

// wireBytes is the bytes per gradient element program p's all-reduce
// carries at precision prec (engine.DataParallel.WireBytes): 2 for FP16
// copies under mixed precision, else 0 (the gradients' own).
func (p *HostProgram) wireBytes(prec workloads.Precision) int {
	if p != nil && p.AllReduce != nil && p.AllReduce.MixedFP16 && prec.Mixed() {
		return 2
	}
	return 0
}

// ImageBatchWork is a program's per-step GPU work on its image batch
// outside the model: the kernels' bytes are counted per element of the
// GPU's batch (images x channels x height x width, N) and of its targets
// (images x classes, M), each kernel priced by devices.OpTime.
type ImageBatchWork struct {
	// Normalize: the batch arrives as uint8 and is converted to FP32 and
	// normalised on the GPU: .float() (1 byte read, 4 written), then
	// in-place sub_(mean) and div_(std) (4 read, 4 written each).
	Normalize bool
	// OneHot: the targets are expanded to one-hot FP32 rows on the GPU
	// (torch.zeros, then scatter_: 4 bytes written per target element
	// each).
	OneHot bool
	// MixUp: each step mixes the batch with a permutation of itself,
	// c x data + (1 - c) x data[perm] (three FP32 passes of 4 bytes read
	// and 4 written, the sum 8 read and 4 written), and its one-hot
	// targets likewise.
	MixUp bool
	// AutocastInput: under mixed precision autocast casts the FP32 batch
	// to FP16 for the first convolution each forward (4 bytes read, 2
	// written), a copy the model's FP16 input does not show.
	AutocastInput bool
	// Source is where the work is read from.
	Source string
}

// HostPrograms are the reference programs the validation set names.
var HostPrograms = map[string]HostProgram{
	"fairseq": {Name: "fairseq",
		Source:         "NVIDIA/DeepLearningExamples PyTorch/Translation/Transformer/fairseq/ddp_trainer.py, DDPTrainer.train_step (pytorch-22.06: torch.cuda.amp, apex DistributedDataParallel, FP32 gradients)",
		GradientDivide: true, GatherList: true, Unscale: true, TokenBatchMultiple: 8, BucketElements: 10_000_000},
	"dle-convnets": {Name: "dle-convnets",
		Source:     "NVIDIA/DeepLearningExamples@7bdfc81d (the pytorch-21.03 results' release) PyTorch/Classification/ConvNets/image_classification/training.py get_train_step (torch.cuda.amp GradScaler, utils.reduce_tensor of the loss, torch.cuda.synchronize() every step) and optimizers.py (torch.optim.SGD)",
		ReduceLoss: true, ZeroGrad: true, ScaledSGD: true, Unscale: true, BroadcastBuffers: true,
		Input: &dleConvNetsInput, ImageBatch: &dleConvNetsBatch},
	// NVIDIA's PyTorch BERT pre-training (DeepLearningExamples@729963dd
	// PyTorch/LanguageModeling/BERT, the pytorch:21.11 figures): its data
	// parallelism is DDP with bucket_cap_mb set to the GPU's memory in
	// bytes (run_pretraining.py: `DDP(model, ..., bucket_cap_mb=
	// torch.cuda.get_device_properties(device).total_memory,
	// gradient_as_bucket_view=True)`), so every gradient is in one bucket,
	// all-reduced once the whole backward is done, and the gradients are
	// views into it, no copy either way; the accumulation micro-batches run
	// under model.no_sync() (allreduce_post_accumulation, which
	// scripts/run_pretraining.sh sets). The bucket is divided once before
	// the all-reduce: by the world size in place by DDP's reducer when no
	// comm hook is registered (torch/csrc/distributed/c10d/reducer.cpp,
	// mark_variable_ready_dense: `bucket_view.div_(div_factor_)` for a
	// gradient that is its bucket view), or, with gradient accumulation,
	// by the accumulation steps in the program's hook
	// (scale_by_grad_accum_steps_wrapper: `bucket.buffer().div_(...)`) and
	// by the world size in the allreduce_hook it wraps
	// (ddp_comm_hooks/default_hooks.py): one pass, or two. Under --fp16
	// with allreduce_post_accumulation_fp16 (set by the script too) the
	// program trains `model.half()` with FP32 masters in its optimizer, so
	// the bucket holds FP16 gradients, and each micro-batch's gradients
	// add into FP16 .grad (a read of each and a write of the sum at 2
	// bytes: 1.5 FP32 words, not the 3 of an FP32 add; the rows keep
	// amp-fp16's FP32 gradients for their kernels, README "Fidelity").
	"dle-pt-bert": {Name: "dle-pt-bert",
		Source:               "NVIDIA/DeepLearningExamples@729963dd PyTorch/LanguageModeling/BERT/run_pretraining.py (DDP with bucket_cap_mb = the GPU's memory in bytes and gradient_as_bucket_view=True; model.no_sync() on accumulation micro-batches; a comm hook dividing the bucket by the accumulation steps; model.half() under --fp16 with allreduce_post_accumulation_fp16) and scripts/run_pretraining.sh",
		MixedMicroBatchWords: -1.5,
		AllReduce: &ProgramAllReduce{Wrapper: "DDP, one bucket of gradient views", OneBucket: true, MixedFP16: true,
			Pack: 1, MixedPack: 1, AccumulationPack: 1, MixedAccumulationPack: 1}},
	// NVIDIA's TensorFlow 1 BERT pre-training: clip_by_global_norm on
	// every micro-batch before the accum_vars assign_add (3 words: the
	// norm's read, the clip's read and write); under TF-AMP 6.5 more: the
	// variables' FP16 casts, the gradients' FP32 casts, the loss scale's
	// unscale and the finiteness check (AccumulationWords cites the lines);
	// a session.run per micro-batch whose fetches drain the GPU, the host
	// work between two runs calibrated (TF1BERTSessionRunGap); Horovod's
	// all-reduce of the accumulated gradients (horovodAllReduce).
	"dle-tf-bert": {Name: "dle-tf-bert",
		Source:          "NVIDIA/DeepLearningExamples@729963dd TensorFlow/LanguageModeling/BERT/optimization.py create_optimizer (num_accumulation_steps > 1: tf.clip_by_global_norm of each micro-batch's gradients, accum_vars assign_add in tf.cond, apply_gradients once per k) and run_pretraining.py (--amp: enable_mixed_precision_graph_rewrite, --use_xla; estimator.train, a session.run per micro-batch, _LogSessionRunHook fetching its losses on every run)",
		MicroBatchWords: 3, MixedMicroBatchWords: 6.5, FlagAllreduceCycle: HorovodCycleBefore021, SessionRunGap: TF1BERTSessionRunGap,
		AllReduce: &horovodAllReduce},
	// NVIDIA's TensorFlow 2 BERT (DeepLearningExamples@729963dd
	// TensorFlow2/LanguageModeling/BERT, the TF 21.02 figures): the whole
	// loop of micro-batches runs inside one tf.function
	// (official/modeling/model_training_utils.py train_steps: forward per
	// micro-batch, `step` under `_ == 0 or (_ + 1) % num_grad_accumulates
	// == 0`), so no host work between micro-batches, and Horovod
	// all-reduces only in `step`; the gradients are clipped once per step.
	// Under mixed precision (run_pretraining.py --use_fp16: Keras policy
	// mixed_float16) every micro-batch makes 5 passes over the gradients
	// beyond the accumulation's add: the FP32 variables are cast to FP16
	// as each layer reads them (AutoCastVariable: read FP32, write FP16:
	// 1.5), their gradients leave through the cast's gradient to FP32
	// (1.5), and forward unscales them before adding them
	// (LossScaleOptimizer.get_unscaled_gradients, g x 1/loss scale: read,
	// write: 2); the finiteness check is apply_gradients', once per step.
	"dle-tf2-bert": {Name: "dle-tf2-bert",
		Source:               "NVIDIA/DeepLearningExamples@729963dd TensorFlow2/LanguageModeling/BERT/official/modeling/model_training_utils.py run_customized_training_loop (forward: get_unscaled_gradients and GradientAccumulator.add_gradients per micro-batch; step: hvd.allreduce, clip_by_global_norm and apply_gradients once per k, all in one tf.function) and run_pretraining.py (--use_fp16: mixed_float16 policy)",
		MixedMicroBatchWords: 5, AllReduce: &horovodAllReduceDivided},
}

// horovodAllReduce is the all-reduce of NVIDIA's TensorFlow BERTs:
// Horovod's allreduce of every gradient (accumulated gradient, with
// accumulation) with compression=Compression.fp16 under mixed precision
// (TensorFlow/LanguageModeling/BERT/optimization.py and
// TensorFlow2/LanguageModeling/BERT/official/modeling/
// model_training_utils.py), after the backward (the tensorflow-xla
// profile's no overlap). Compression.fp16 casts each FP32 gradient to
// FP16 before and back after (horovod/tensorflow/compression.py
// FP16Compressor: tf.cast, 1.5 passes each). Horovod's NCCL allreduce of a
// fused response copies the tensors into its fusion buffer, all-reduces,
// scales the sum by 1/size (op Average: postscale_factor, ScaleBuffer)
// and copies them out (horovod/common/ops/nccl_operations.cc
// NCCLAllreduce::Execute, v0.20.0 to v0.21.3: MemcpyInFusionBuffer,
// ncclAllReduce, ScaleBuffer, MemcpyOutFusionBuffer): 1 pass before, 2
// after, every tensor counted as fused (BERT-large's largest, the word
// embeddings' 125 MB, is under the 64 or 128 MiB fusion threshold).
// Horovod before 0.20 averaged in TensorFlow on the FP32 result instead
// (v0.19.5 horovod/tensorflow/__init__.py: summed_tensor / horovod_size):
// the same pass count in FP32, one pass more under mixed precision, for
// the TensorFlow 1 program's container (20.06), whose Horovod version its
// release notes do not give.
var horovodAllReduce = ProgramAllReduce{Wrapper: "Horovod", MixedFP16: true,
	Pack: 1, Unpack: 2, MixedPack: 1 + 1.5, MixedUnpack: 2 + 1.5}

// horovodAllReduceDivided is horovodAllReduce with the TensorFlow 2
// program's division of each accumulated FP32 gradient by the
// accumulation steps before it (model_training_utils.py step:
// `hvd.allreduce(g / tf.cast(num_grad_accumulates, g.dtype), ...)`): a
// pass over the FP32 gradient, 2 over its FP16 copy's bytes. Without
// accumulation the program all-reduces through DistributedGradientTape,
// undivided.
var horovodAllReduceDivided = func() ProgramAllReduce {
	a := horovodAllReduce
	a.AccumulationPack, a.MixedAccumulationPack = 1, 2
	return a
}()

// TF1BERTSessionRunGap is NVIDIA's TensorFlow 1 BERT's
// HostProgram.SessionRunGap: 42.1 ms a session.run. Calibrated, not
// derived: it is the value that makes the one row of that program in
// validation/published.tsv (bertl-tf-1xv100-32gb-s512-b8-fp32: 1 x V100
// 32 GB on a DGX-1, FP32, sequence 512, 8 sequences a micro-batch, 4,096
// micro-batches an update, 10.67 sequences/s measured) come out as
// measured: 4,096 x 8 / 10.67 = 3,071.0 s an update measured, 2,898.7 s
// simulated without the gap, (3,071.0 - 2,898.7) / 4,096 = 42.1 ms a
// micro-batch (TestSessionRunGapCalibration recomputes it from the
// simulation of today). That row is therefore no check of it; the
// twelve rows of the same program in checks/dle-beyond.tsv (1, 4 and 8
// V100 and A100 GPUs, FP32, TF32 and AMP, sequences 128 and 512, 1,024 to
// 8,192 tokens a micro-batch; none used to set it) are. The same value
// serves every GPU and host: the A100 rows' DGX A100 (AMD EPYC 7742) is
// not slowed or sped by it, as no source gives the two hosts' speeds at
// this work.
const TF1BERTSessionRunGap = 42.1e-3

// HorovodCycleBefore021 is the cycle of Horovod's background thread before
// Horovod 0.21.0 (2020-11-23), whose CHANGELOG says "Changed default cycle
// time from 5ms to 1ms" (horovod/horovod#2468; horovod/common/operations.cc
// BackgroundThreadLoop: SetCycleTimeMs(5), RunLoopOnce sleeping out the
// rest of each cycle before it gathers the ranks' requests): the Horovod
// of the TensorFlow 20.06-tf1-py3 container (June 2020) that NVIDIA's
// TensorFlow BERT figures ran in, whose scripts set no HOROVOD_CYCLE_TIME.
const HorovodCycleBefore021 = 5e-3

// MicroBatchSync is the time every micro-batch of gradient accumulation
// waits, beyond its forward and backward, for program p's per-micro-batch
// all-reduce of a flag on n GPUs in precision prec (nil p: none).
// NVIDIA's TensorFlow 1 BERT (optimization.py create_optimizer,
// num_accumulation_steps > 1, run with --horovod on more than one GPU)
// computes new_global_step from tf.math.logical_and(update_step,
// hvd.allreduce(tf.cast(batch_finite, tf.int32))) outside any tf.cond, and
// the train op groups global_step.assign(new_global_step), so every
// session.run, one per micro-batch, all-reduces batch_finite and waits
// for it on every rank. Under
// mixed precision batch_finite is assigned from all_are_finite, the
// finiteness check of every gradient, so the request reaches Horovod only
// after the backward; in FP32 and TF32 all_are_finite is a constant and the
// all-reduce runs beside the forward, hidden. Horovod's background thread
// takes requests once a cycle (FlagAllreduceCycle), at a phase unrelated
// to the micro-batch's end: half a cycle on average, then the NCCL
// all-reduce of one int32 (engine.NCCLRingBaseLatency and 2(n-1) ring
// steps). The ranks' negotiation messages (MPI) are not counted.
func (p *HostProgram) MicroBatchSync(prec workloads.Precision, n int) float64 {
	if p == nil || !(p.FlagAllreduceCycle > 0) || n < 2 || !prec.Mixed() {
		return 0
	}
	return p.FlagAllreduceCycle/2 + engine.NCCLRingBaseLatency + float64(2*(n-1))*engine.NCCLRingStepLatency
}

// dleConvNetsInput is the input pipeline of DeepLearningExamples' ConvNets
// as its published training throughputs ran it (the pytorch-21.03
// results' release, NVIDIA/DeepLearningExamples@7bdfc81d,
// PyTorch/Classification/ConvNets): the README's benchmark commands use
// `--mode benchmark_training`, which sets no data_backend, so the model's
// resnet_params anchor (configs.yml: data_backend: pytorch) holds; main.py
// then takes get_pytorch_train_loader (image_classification/dataloaders.py:
// torchvision ImageFolder, RandomResizedCrop(224, bilinear) and
// RandomHorizontalFlip on PIL images, fast_collate into uint8, the
// normalisation on the GPU; persistent_workers, pin_memory, the
// DataLoader's default prefetch_factor 2), with configs.yml's platform
// workers: 16 per GPU on DGXA100 and 8 on DGX1V (no gpu_affinity at that
// release: 10 workers and socket_unique_contiguous came later).
// Its cost per image is the sum of two published single-process
// measurements, each scaled from its CPU's boost clock by the clock alone
// (InputPipeline.CostAt):
//   - read, decode and convert to RGB, as torchvision's pil_loader does
//     (Image.open, convert("RGB")): 410.01 +- 4.33 images/s, 2.439 ms an
//     image, on an AMD EPYC 7702 (Zen 2, the EPYC 7742's core; max boost
//     3.35 GHz, AMD's product page), Pillow, 5 runs over 2,000 ImageNet
//     validation JPEGs, one process (ternaus/imread_benchmark@b6c1178,
//     output/linux_AMD-EPYC-7702-64-Core-Processor/pillow_results.json,
//     imread_benchmark/benchmark_single.py: Image.open, convert("RGB"),
//     np.asarray; the preprint is Iglovikov, arXiv 2501.13131). The
//     np.asarray copy of the whole image is not in the program's loader:
//     counted, it makes this a slight overestimate;
//   - the transforms on the PIL image, torchvision v1, one thread, medians
//     over 1,000 images of ImageNet's average size (469 x 387, uint8): the
//     crop of RandomResizedCrop 72 us, its resize to 224 (bilinear, Pillow)
//     554 us, RandomHorizontalFlip(p=0.5) 52 us and PILToTensor 51 us (one
//     copy of the 224 x 224 image, what fast_collate's np.asarray copies;
//     its transposing copy and the add into the batch tensor are not
//     counted), on an AMD Ryzen 9 5900X (Zen 3; max boost 4.8 GHz, AMD's
//     product page; lscpu in the log: 4.95 GHz)
//     (pmeier/detection-reference-benchmark@d639f63,
//     results/20230412135803.log, classification-simple,
//     input_type='PIL', api_version='v1'; the benchmark behind
//     pytorch/vision#7497). The benchmark resizes the crop's short side to
//     224 (Resize(224)), RandomResizedCrop to 224 x 224.
//
// Not counted: a Zen 3 core does more per clock than the Zen 2 and
// Broadwell cores these settings ran on, so the resize's share is an
// underestimate on them; the DataLoader's passing of each batch through
// shared memory, the pin-memory thread's copy and the main process's
// Python are not per-image work of the workers.
var dleConvNetsInput = InputPipeline{
	Backend:  "pytorch",
	Source:   "NVIDIA/DeepLearningExamples@7bdfc81d PyTorch/Classification/ConvNets configs.yml (resnet_params data_backend pytorch; platform workers) and image_classification/dataloaders.py get_pytorch_train_loader",
	Prefetch: 2,
	Stages: []InputStage{
		{Name: "read, decode, convert to RGB", Seconds: 1 / 410.01, GHz: 3.35, CPU: "AMD EPYC 7702",
			Source: "ternaus/imread_benchmark@b6c1178 output/linux_AMD-EPYC-7702-64-Core-Processor/pillow_results.json: Pillow 410.01 images/s, ImageNet validation JPEGs"},
		{Name: "RandomResizedCrop's crop", Seconds: 72e-6, GHz: 4.8, CPU: "AMD Ryzen 9 5900X", Source: pmeierClassificationPIL},
		{Name: "RandomResizedCrop's resize to 224 (bilinear)", Seconds: 554e-6, GHz: 4.8, CPU: "AMD Ryzen 9 5900X", Source: pmeierClassificationPIL},
		{Name: "RandomHorizontalFlip", Seconds: 52e-6, GHz: 4.8, CPU: "AMD Ryzen 9 5900X", Source: pmeierClassificationPIL},
		{Name: "copy into the batch (PILToTensor's copy)", Seconds: 51e-6, GHz: 4.8, CPU: "AMD Ryzen 9 5900X", Source: pmeierClassificationPIL},
	},
	Platforms: []InputPlatform{
		{Name: "DGXA100", GPUPrefix: "A100", WorkersPerGPU: 16, CPU: devices.DGXA100CPU},
		{Name: "DGX1V", GPUPrefix: "V100", WorkersPerGPU: 8, CPU: devices.DGX1CPU},
	},
}

// dleConvNetsBatch is the ConvNets program's GPU work on each step's batch
// as its published throughputs ran it (NVIDIA/DeepLearningExamples@7bdfc81d
// PyTorch/Classification/ConvNets): configs.yml's resnet_params set
// mixup: 0.2 and label_smoothing: 0.1 and the benchmark_training mode
// overrides neither, so main.py asks get_pytorch_train_loader for one-hot
// targets (args.mixup > 0.0) and wraps the loader in MixUpWrapper;
// dataloaders.py PrefetchedWrapper.prefetched_loader copies the uint8
// batch to the GPU and runs next_input.float(), expand() (torch.zeros and
// scatter_ of the targets) and next_input.sub_(mean).div_(std) on a side
// stream for the next batch when the loop asks for this one: after the
// previous step's torch.cuda.synchronize() (training.py), with the GPU
// idle, ahead of this step's kernels and beside its first ones (priced
// here as the step's own, as the program's other passes); mixup.py mixup
// then computes c * data + (1 - c) * data[perm, :] and the same of the
// targets on the compute stream under torch.no_grad.
// Under AMP (training.py get_train_step: torch.cuda.amp.autocast around
// the model) the normalised FP32 batch is cast to FP16 for the first
// convolution (autocast's float16 op list: conv2d). The loss
// (NLLMultiLabelSmooth on images x classes) is not counted: a few kernels
// over 256 x 1000 elements.
var dleConvNetsBatch = ImageBatchWork{Normalize: true, OneHot: true, MixUp: true, AutocastInput: true,
	Source: "NVIDIA/DeepLearningExamples@7bdfc81d PyTorch/Classification/ConvNets configs.yml (resnet_params mixup 0.2), main.py (MixUpWrapper, one_hot = mixup > 0), image_classification/dataloaders.py PrefetchedWrapper (float, sub_, div_, expand) and mixup.py mixup"}

// pmeierClassificationPIL is the source of the transforms' costs
// (dleConvNetsInput).
const pmeierClassificationPIL = "pmeier/detection-reference-benchmark@d639f63 results/20230412135803.log, classification-simple, PIL v1, medians"

// HostProgramNames lists HostPrograms' names, sorted.
func HostProgramNames() []string {
	return slices.Sorted(maps.Keys(HostPrograms))
}

// HostCost is a program's per-iteration costs beyond the simulated
// kernels, in seconds; the iteration takes their sum longer (each one
// happens on every GPU at a point where all of them wait for it: before
// the update, after the gradients are all-reduced).
type HostCost struct {
	// GradientPassGPU is the GPU time of the program's passes over the
	// gradients (fairseq's division), on any number of GPUs.
	GradientPassGPU float64 `json:"gradientPassGpu,omitempty"`
	// GatherList is the host's all-gather of the logging outputs with its
	// collective's latency (more than one GPU).
	GatherList float64 `json:"gatherList,omitempty"`
	// IssueWait is the time the GPU waits for the host to issue the
	// gradient division's kernels one by one after that synchronisation
	// (the loop's wall time less its kernels' GPU time).
	IssueWait float64 `json:"issueWait,omitempty"`
	// ReduceLoss is the loss's clone and division for its all-reduce
	// (more than one GPU).
	ReduceLoss float64 `json:"reduceLoss,omitempty"`
	// OptimizerIssueWait is the time the GPU waits for the host to issue
	// the optimizer's and zero_grad's kernels after the loss scaler's
	// synchronisation: the loop's wall time less the simulated update
	// ops' time.
	OptimizerIssueWait float64 `json:"optimizerIssueWait,omitempty"`
	// SlowestBatch is the extra compute of the GPU whose token batch kept
	// the most padded tokens (TokenBatchMultiple, more than one GPU); for
	// a row on fairseq's batches of a length distribution, that of the
	// GPU whose batch costs the most by its length and its sides
	// (simulateTokenMix).
	SlowestBatch float64 `json:"slowestBatch,omitempty"`
	// Unscale is the loss scaler's unscaling pass over the gradients and
	// its found_inf read (Unscale; mixed precision only).
	Unscale float64 `json:"unscale,omitempty"`
	// BufferBroadcast is DDP's broadcast of the module's buffers before
	// the forward: the collective's latency and the copies back into the
	// buffers (more than one GPU).
	BufferBroadcast float64 `json:"bufferBroadcast,omitempty"`
	// ImageBatch is the GPU time of the program's work on the image batch
	// before the model (ImageBatchWork), on any number of GPUs.
	ImageBatch float64 `json:"imageBatch,omitempty"`
	// SessionRun is the host's work between two of the program's
	// iterations that the GPU waits for (HostProgram.SessionRunGap, times
	// HostScale), on any number of GPUs.
	SessionRun float64 `json:"sessionRun,omitempty"`
	// HostScale is how many times as long the program's host work took as
	// the devices package's measured times (CostAtHost; 1: as measured).
	HostScale float64 `json:"hostScale,omitempty"`
}

// Total is the iteration's extra time.
func (h HostCost) Total() float64 {
	return h.GradientPassGPU + h.GatherList + h.IssueWait + h.ReduceLoss + h.OptimizerIssueWait + h.BufferBroadcast + h.Unscale + h.SlowestBatch + h.ImageBatch + h.SessionRun
}

// Cost is the program's per-iteration cost for graph g (one replica's
// training step) on n GPUs of kind k. The collectives' latencies are
// NCCL's ring latencies of the classic engine's NCCL model
// (engine.NCCLRingBaseLatency and NCCLRingStepLatency): a small
// all-gather makes n-1 ring steps, a small all-reduce 2(n-1).
func (p HostProgram) Cost(g *workloads.Graph, k *devices.Kind, n int) (HostCost, error) {
	return p.CostAtHost(g, k, n, 1)
}

// CostAtHost is Cost with the program's host work (the devices package's
// Host* times: Python's eager issue, blocking reads, the gather's pickling)
// hostScale times as long: a main process on a core at a lower clock than
// the one the 1-GPU row's host work runs at (hostScale = that clock / the
// row's, InputPipeline.HostClock).
func (p HostProgram) CostAtHost(g *workloads.Graph, k *devices.Kind, n int, hostScale float64) (HostCost, error) {
	var h HostCost
	if n < 1 {
		return h, fmt.Errorf("host program %s: %d GPUs (valid range: >= 1)", p.Name, n)
	}
	if !(hostScale >= 1) || math.IsInf(hostScale, 0) {
		return h, fmt.Errorf("host program %s: host work scale %g (valid range: >= 1, the 1-GPU clock over the row's)", p.Name, hostScale)
	}
	h.HostScale = hostScale
	h.SessionRun = hostScale * p.SessionRunGap
	if p.GradientDivide {
		// one tensor per update op (the zoo's optimizer updates each
		// parameter tensor with an op of its own, as PyTorch's do)
		var gpu []float64
		for i := range g.Ops {
			o := &g.Ops[i]
			if o.Role != workloads.Update || o.GradBytes <= 0 {
				continue
			}
			t, err := devices.GradientPassTime(o.GradBytes, k)
			if err != nil {
				return h, fmt.Errorf("host program %s: op %q: %w", p.Name, o.Name, err)
			}
			gpu = append(gpu, t)
			h.GradientPassGPU += t
		}
		if n > 1 && p.GatherList {
			wall := devices.HostIssuedLoop(gpu, hostScale*devices.HostEagerOpTime)
			h.IssueWait = wall - h.GradientPassGPU
		}
	}
	if n > 1 && p.GatherList {
		h.GatherList = float64(n)*hostScale*devices.HostGatherListPerRank +
			engine.NCCLRingBaseLatency + float64(n-1)*engine.NCCLRingStepLatency
	}
	if w := p.ImageBatch; w != nil {
		t, err := w.Time(g, k, n)
		if err != nil {
			return h, fmt.Errorf("host program %s: %w", p.Name, err)
		}
		h.ImageBatch = t
	}
	if n > 1 && p.ReduceLoss {
		t, err := devices.GradientPassTime(4, k) // one FP32 scalar
		if err != nil {
			return h, err
		}
		h.ReduceLoss = 2 * t
	}
	if n > 1 && p.BroadcastBuffers {
		// batch norm's update ops are its weight and bias, each the size
		// of one running statistic: one buffer per update op (mean for
		// the weight, variance for the bias) and a batch counter per pair
		var flat int64
		var copies float64
		var norms int
		for i := range g.Ops {
			o := &g.Ops[i]
			if o.Role != workloads.Update || o.GradBytes <= 0 || !strings.Contains(strings.ToLower(o.Name), "batchnorm") {
				continue
			}
			norms++
			t, err := devices.GradientPassTime(o.GradBytes, k)
			if err != nil {
				return h, err
			}
			copies += t
			flat += o.GradBytes
		}
		if norms > 0 {
			counter, err := devices.GradientPassTime(8, k)
			if err != nil {
				return h, err
			}
			copies += float64(norms/2) * counter
			flatten, err := devices.GradientPassTime(flat, k)
			if err != nil {
				return h, err
			}
			h.BufferBroadcast = flatten + copies + engine.NCCLRingBaseLatency + float64(n-1)*engine.NCCLRingStepLatency
		}
	}
	if p.Unscale && strings.HasPrefix(string(g.Precision), "amp") {
		var grads int64
		for i := range g.Ops {
			if o := &g.Ops[i]; o.Role == workloads.Update && o.GradBytes > 0 {
				grads += o.GradBytes
			}
		}
		if grads > 0 {
			// one multi-tensor pass (its launches are few: a kernel per
			// chunk list, priced as one), then the blocking read; under
			// ScaledSGD that read's wait is part of OptimizerIssueWait
			t, err := devices.GradientPassTime(grads, k)
			if err != nil {
				return h, fmt.Errorf("host program %s: unscale: %w", p.Name, err)
			}
			h.Unscale = t
			if !p.ScaledSGD {
				h.Unscale += hostScale * devices.HostBlockingRead
			}
		}
	}
	if p.ZeroGrad || p.ScaledSGD {
		scaled := p.ScaledSGD && strings.HasPrefix(string(g.Precision), "amp")
		var loop []float64 // the kernels issued after the scaler's read
		var zero, updates float64
		for i := range g.Ops {
			o := &g.Ops[i]
			if o.Role != workloads.Update || o.GradBytes <= 0 {
				continue
			}
			pass, err := devices.GradientPassTime(o.GradBytes, k)
			if err != nil {
				return h, fmt.Errorf("host program %s: op %q: %w", p.Name, o.Name, err)
			}
			if p.ZeroGrad {
				zero += pass
			}
			if !scaled {
				continue
			}
			u, err := devices.OpTime(o, k)
			if err != nil {
				return h, fmt.Errorf("host program %s: op %q: %w", p.Name, o.Name, err)
			}
			updates += u
			kernels := 3 // momentum buffer mul_ and add_, parameter add_
			if !strings.Contains(strings.ToLower(o.Name), "norm") {
				kernels++ // weight decay's add
			}
			if p.ZeroGrad {
				kernels++
			}
			for j := 0; j < kernels; j++ {
				loop = append(loop, pass)
			}
		}
		if scaled {
			// the update ops' simulated time is part of the loop's wall
			h.OptimizerIssueWait = math.Max(0, devices.HostIssuedLoop(loop, hostScale*devices.HostOptimizerKernelTime)-updates)
		} else {
			h.GradientPassGPU += zero
		}
	}
	return h, nil
}

// bucketBytes is the program's gradient bucket in bytes: 0 (one bucket)
// for a OneBucket all-reduce, BucketElements FP32 gradients (the
// programs' parameters are FP32 under torch.cuda.amp too), or
// DDPBucketBytes.
func (p *HostProgram) bucketBytes() int64 {
	switch {
	case p != nil && p.AllReduce != nil && p.AllReduce.OneBucket:
		return 0
	case p == nil || p.BucketElements <= 0:
		return DDPBucketBytes
	}
	return 4 * p.BucketElements
}

// hostProgram looks a validation file's program column up: "" or "-" is
// none; an unknown name is an error listing the valid ones.
func hostProgram(name string) (*HostProgram, error) {
	if name == "" || name == "-" {
		return nil, nil
	}
	p, ok := HostPrograms[name]
	if !ok {
		return nil, fmt.Errorf("%q (valid: -, %s)", name, strings.Join(HostProgramNames(), ", "))
	}
	return &p, nil
}

// Time is the GPU time of the work on one GPU's share of graph g's image
// batch (g.Batch / n images) on kind k: the graph's image input (the zoo
// classifiers' "input/images" op, imageInput) holds the images (its bytes
// over the graph's activation element size are the global batch's
// elements) and its forward softmax the classes (its FP32 output's
// elements over the batch). A graph without an image input has no image batch:
// 0.
func (w *ImageBatchWork) Time(g *workloads.Graph, k *devices.Kind, n int) (float64, error) {
	if n < 1 || g.Batch < n || g.Batch%n != 0 {
		return 0, fmt.Errorf("image batch: global batch %d on %d GPUs (valid: a positive multiple of the GPUs)", g.Batch, n)
	}
	elem := g.Precision.ActivationBytes()
	var images, logits int64
	for i := range g.Ops {
		o := &g.Ops[i]
		switch {
		case images == 0 && o.Type == "input" && strings.HasSuffix(o.Name, "images"):
			images = o.OutputBytes / elem
		case logits == 0 && o.Role == workloads.Forward && workloads.KernelClassOf(o) == workloads.KernelSoftmax:
			// the zoo's loss keeps FP32 logits at any precision, as
			// autocast runs log_softmax in FP32 (ResNet-50 under AMP:
			// 8,192,000 bytes for 2,048 x 1,000)
			logits = o.OutputBytes / 4
		}
	}
	if images <= 0 {
		return 0, nil
	}
	if logits <= 0 || logits%int64(g.Batch) != 0 {
		return 0, fmt.Errorf("image batch: workload %q has images but no forward softmax of batch x classes FP32 elements to count its classes by (%d elements, batch %d)", g.Name, logits, g.Batch)
	}
	ni, nt := float64(images/int64(n)), float64(logits/int64(n))
	type kernel struct {
		typ          string
		elems, bytes float64 // elements and bytes moved per element
	}
	var ks []kernel
	if w.Normalize {
		ks = append(ks, kernel{"cast", ni, 5}, kernel{"sub", ni, 8}, kernel{"div", ni, 8})
	}
	if w.OneHot {
		ks = append(ks, kernel{"fill", nt, 4}, kernel{"scatter", nt, 4})
	}
	if w.MixUp {
		for _, m := range []float64{ni, nt} {
			ks = append(ks, kernel{"mul", m, 8}, kernel{"gather", m, 8}, kernel{"mul", m, 8}, kernel{"add", m, 12})
		}
	}
	if w.AutocastInput && g.Precision.Mixed() {
		ks = append(ks, kernel{"cast", ni, 6})
	}
	var t float64
	for _, kn := range ks {
		op := workloads.Op{Name: "image batch " + kn.typ, Type: kn.typ, Role: workloads.Forward, Precision: workloads.FP32,
			BytesAccessed: int64(kn.elems * kn.bytes), OutputBytes: int64(kn.elems * 4), FLOPs: kn.elems}
		if kn.typ == "gather" {
			op.FLOPs = 0
		}
		d, err := devices.OpTime(&op, k)
		if err != nil {
			return 0, fmt.Errorf("image batch: %s: %w", kn.typ, err)
		}
		t += d
	}
	return t, nil
}
