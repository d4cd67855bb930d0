package study

import (
	"fmt"
	"sort"
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
	// for logging each iteration and reads it (DeepLearningExamples
	// ConvNets, training.py train(): utils.reduce_tensor, then .item()),
	// one small blocking all-reduce and one eager division per iteration
	// beyond what it does on one GPU (where it reads the loss too).
	ReduceLoss bool
}

// HostPrograms are the reference programs the validation set names.
var HostPrograms = map[string]HostProgram{
	"fairseq": {Name: "fairseq",
		Source:         "NVIDIA/DeepLearningExamples PyTorch/Translation/Transformer/fairseq/ddp_trainer.py, DDPTrainer.train_step (pytorch-22.06: torch.cuda.amp, apex DistributedDataParallel, FP32 gradients)",
		GradientDivide: true, GatherList: true},
	"dle-convnets": {Name: "dle-convnets",
		Source:     "NVIDIA/DeepLearningExamples PyTorch/Classification/ConvNets/image_classification/training.py, train() and Trainer.train_step (torch.cuda.synchronize() every iteration, utils.reduce_tensor of the loss)",
		ReduceLoss: true},
}

// HostProgramNames lists HostPrograms' names, sorted.
func HostProgramNames() []string {
	names := make([]string, 0, len(HostPrograms))
	for n := range HostPrograms {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
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
	// ReduceLoss is the loss's blocking all-reduce for logging with its
	// eager division (more than one GPU).
	ReduceLoss float64 `json:"reduceLoss,omitempty"`
}

// Total is the iteration's extra time.
func (h HostCost) Total() float64 {
	return h.GradientPassGPU + h.GatherList + h.IssueWait + h.ReduceLoss
}

// Cost is the program's per-iteration cost for graph g (one replica's
// training step) on n GPUs of kind k. The collectives' latencies are
// NCCL's ring latencies of the classic engine's NCCL model
// (engine.NCCLRingBaseLatency and NCCLRingStepLatency): a small
// all-gather makes n-1 ring steps, a small all-reduce 2(n-1).
func (p HostProgram) Cost(g *workloads.Graph, k *devices.Kind, n int) (HostCost, error) {
	var h HostCost
	if n < 1 {
		return h, fmt.Errorf("host program %s: %d GPUs (valid range: >= 1)", p.Name, n)
	}
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
			wall := devices.HostIssuedLoop(gpu, devices.HostEagerOpTime)
			h.IssueWait = wall - h.GradientPassGPU
		}
	}
	if n > 1 && p.GatherList {
		h.GatherList = float64(n)*devices.HostGatherListPerRank +
			engine.NCCLRingBaseLatency + float64(n-1)*engine.NCCLRingStepLatency
	}
	if n > 1 && p.ReduceLoss {
		h.ReduceLoss = engine.NCCLRingBaseLatency + float64(2*(n-1))*engine.NCCLRingStepLatency + devices.HostEagerOpTime
	}
	return h, nil
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
