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
//	T_acc = (k-1) (T_micro + T_add) + T_step
//
// and the step's throughput is k batch / T_acc.
type AccumulatedStep struct {
	// Steps is k, Micro T_micro, Add T_add, Step T_step and Total T_acc
	// (seconds).
	Steps int     `json:"steps"`
	Micro float64 `json:"micro"`
	Add   float64 `json:"add"`
	Step  float64 `json:"step"`
	Total float64 `json:"total"`
}

// accumulate is the AccumulatedStep of k micro-batches of a step that
// took step seconds (program costs included), whose simulation is r on
// graph g with GPUs of kind kind.
func accumulate(r *engine.Result, g *workloads.Graph, kind *devices.Kind, k int, step float64) (AccumulatedStep, error) {
	a := AccumulatedStep{Steps: k, Step: step}
	if k < 1 || !(step > 0) || r == nil {
		return a, fmt.Errorf("gradient accumulation: %d steps (valid range: >= 1), step %g s (valid: > 0)", k, step)
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
		op := workloads.Op{Name: "accumulate gradient", Type: "add", Role: workloads.Backward, BytesAccessed: 3 * o.GradBytes, FLOPs: float64(o.GradBytes / 4)}
		t, err := devices.OpTime(&op, kind)
		if err != nil {
			return a, fmt.Errorf("gradient accumulation: op %q: %w", o.Name, err)
		}
		a.Add += t
	}
	a.Total = float64(k-1)*(a.Micro+a.Add) + a.Step
	return a, nil
}
