package study

import (
	"fmt"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// AccumulatedStep is a training step with gradient accumulation: k
// micro-batches of the simulated step's batch, each a forward and backward
// pass whose gradients are added into the accumulated ones, and one
// all-reduce and optimizer update after the last, as the BERT pre-training
// programs run it:
//
//   - NVIDIA's PyTorch BERT (DeepLearningExamples PyTorch/LanguageModeling/
//     BERT run_pretraining.py at the pytorch:21.11 results' release): with
//     --allreduce_post_accumulation (run_pretraining.sh's default) the
//     first k-1 micro-batches run under DistributedDataParallel.no_sync(),
//     take_optimizer_step (FusedLAMBAMP, then zero_grad(set_to_none=True))
//     runs after the k-th; autograd's AccumulateGrad adds each new
//     gradient into the parameter's .grad in place (grad += new) from the
//     second micro-batch on (the first writes .grad afresh).
//   - NVIDIA's TensorFlow BERT (TensorFlow/LanguageModeling/BERT
//     optimization.py create_optimizer, num_accumulation_steps,
//     allreduce_post_accumulation=True in run_pretraining_lamb_phase1/2.sh):
//     accum_vars assign the first micro-batch's gradients and assign_add
//     the others', the Horovod all-reduce and apply_gradients run once per
//     k.
//
// With T_step the simulated step (forward, backward, all-reduce, update,
// and the row's program costs), T_micro one micro-batch's forward and
// backward compute on the slowest GPU (the ops' own times, without what
// the all-reduce charged them, times the slowest GPU's slowdown: with no
// all-reduce between micro-batches the GPUs do not wait for each other
// until the last) and T_add one in-place add over every gradient (read
// both, write one: 3 x the gradient's bytes, an elementwise kernel per
// parameter tensor), the k micro-batches take
//
//	T_acc = (k-1) (T_micro + T_add + T_run) + T_step + k T_sync
//
// and the step's throughput is k batch / T_acc. T_run is the host's work
// between two of the program's iterations that the GPU waits for, once a
// micro-batch (HostProgram.SessionRunGap: NVIDIA's TensorFlow 1 BERT runs
// each micro-batch as a session.run of its own; T_step holds the last
// one's). T_sync is what every
// micro-batch, the last one too, waits for its program's per-micro-batch
// synchronisation (HostProgram.MicroBatchSync: NVIDIA's TensorFlow 1
// BERT's Horovod all-reduce of its finiteness flag; 0 for the others).
//
// T_add is AccumulationWords(program, precision) passes over the
// gradients' bytes: 3 (the in-place add), more for a program that does
// more per micro-batch (NVIDIA's TensorFlow 1 BERT clips each one).
type AccumulatedStep struct {
	// Steps is k, Micro T_micro, Add T_add, Run T_run, Step T_step, Sync
	// T_sync and Total T_acc (seconds).
	Steps int     `json:"steps"`
	Micro float64 `json:"micro"`
	Add   float64 `json:"add"`
	Run   float64 `json:"run,omitempty"`
	Step  float64 `json:"step"`
	Sync  float64 `json:"sync,omitempty"`
	Total float64 `json:"total"`
}

// AccumulationWords is the passes over every parameter's gradient, in
// gradient-sized words, that one micro-batch of gradient accumulation
// makes beyond its forward and backward, for a validation row's program
// p (nil: none named) and precision: the in-place add (autograd's
// AccumulateGrad, TensorFlow's assign_add: read both, write one: 3), plus
// p's MicroBatchWords, plus its MixedMicroBatchWords under mixed
// precision. For NVIDIA's TensorFlow 1 BERT (program dle-tf-bert:
// DeepLearningExamples TensorFlow/LanguageModeling/BERT optimization.py
// create_optimizer with num_accumulation_steps > 1) every micro-batch's
// gradients are clipped by their global norm before the accum_vars
// assign_add inside tf.cond: tf.global_norm reads every gradient (1) and
// clip_by_global_norm reads and writes it (2). Under TF-AMP (--amp:
// tf.train.experimental.enable_mixed_precision_graph_rewrite, TF 1.15)
// every micro-batch also makes the passes the zoo charges once per step
// to the update ops (workloads ampWords): the variables stay FP32 and the
// rewrite casts each one to FP16 for its MatMul (read FP32, write FP16:
// 1.5), and the gradients leave the FP16 MatMuls through a cast to FP32
// (1.5), because the optimizer wrapper's compute_gradients unscales them
// right there (MixedPrecisionLossScaleOptimizer._unscale_grads, grad *
// 1/loss_scale: read, write: 2) and grappler's auto_mixed_precision keeps
// that Mul in FP32: Mul is a graylist op, made FP16 only between two
// whitelist ops, and nothing downstream of it is whitelisted (IsFinite,
// Switch and Merge are clearlist, L2Loss blacklist, the accum_vars'
// assign_add unlisted; auto_mixed_precision.cc passes 1 to 4,
// auto_mixed_precision_lists.h). The loss scaler's finiteness check
// (all_are_finite: reduce_all(is_finite(g)) over every gradient) reads
// the FP32 gradients and writes and reads a bool per element (1.5), and
// the norm and the clip read them as FP32 (counted above): 6.5 more in
// all. Each op is counted as a pass of its own, as the clip's are; where
// XLA's auto-clustering fuses some of them the passes are fewer.
// NVIDIA's TensorFlow 2 BERT (program dle-tf2-bert,
// official/modeling/model_training_utils.py) clips once per step after
// accumulating, and under mixed precision makes 5 passes a micro-batch
// (the variables' casts, the gradients' casts, the unscale; HostPrograms
// cites them).
func AccumulationWords(p *HostProgram, prec workloads.Precision) float64 {
	w := 3.0
	if p != nil {
		w += p.MicroBatchWords
		if prec.Mixed() {
			w += p.MixedMicroBatchWords
		}
	}
	return w
}

// accumulate is the AccumulatedStep of k micro-batches of a step that
// took step seconds (program costs included), whose simulation is r on
// graph g with GPUs of kind kind, each micro-batch making words passes
// over the gradients besides its forward and backward
// (AccumulationWords), waiting sync seconds for its program's
// synchronisation (HostProgram.MicroBatchSync) and run seconds for its
// program's host work between iterations (HostCost.SessionRun, which
// step already holds once).
func accumulate(r *engine.Result, g *workloads.Graph, kind *devices.Kind, k int, step, words, sync, run float64) (AccumulatedStep, error) {
	a := AccumulatedStep{Steps: k, Step: step, Sync: sync, Run: run}
	if k < 1 || !(step > 0) || r == nil || sync < 0 || !(run >= 0) || run >= step {
		return a, fmt.Errorf("gradient accumulation: %d steps (valid range: >= 1), step %g s (valid: > 0), sync %g s (valid: >= 0), host work between iterations %g s (valid: >= 0 and below the step's)", k, step, sync, run)
	}
	slow := 1.0
	if dp := r.DataParallel; dp != nil {
		slow += dp.Slowdown
	}
	a.Micro = stepCompute(r, g) * slow
	for i := range g.Ops {
		o := &g.Ops[i]
		if o.Role != workloads.Update || o.GradBytes <= 0 {
			continue
		}
		// one add per gradient element, in the gradient's precision (2
		// bytes under fp16 and bf16, 4 otherwise: as addUpdates counts them)
		t, err := devices.GradientWordsTime(o.GradBytes, words, g.Precision.ParamBytes(), kind)
		if err != nil {
			return a, fmt.Errorf("gradient accumulation: op %q: %w", o.Name, err)
		}
		a.Add += t
	}
	a.Total = float64(k-1)*(a.Micro+a.Add+a.Run) + a.Step + float64(k)*a.Sync
	return a, nil
}
