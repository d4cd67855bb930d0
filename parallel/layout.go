package parallel

import (
	"fmt"
	"strconv"
	"strings"
)

// Sharding is how the data-parallel ranks share the model state
// (Rajbhandari et al. 2020, "ZeRO", section 5; PyTorch FSDP).
type Sharding int

// Sharding modes.
const (
	// ShardNone: every data-parallel rank holds the whole model state and
	// all-reduces the gradients (PyTorch DDP, Megatron without the
	// distributed optimizer).
	ShardNone Sharding = iota
	// ShardZeRO1: optimizer state sharded (Megatron's distributed
	// optimizer): gradients reduce-scattered, updated parameters
	// all-gathered.
	ShardZeRO1
	// ShardZeRO2: optimizer state and gradients sharded.
	ShardZeRO2
	// ShardZeRO3: parameters, gradients and optimizer state sharded
	// (ZeRO-3, PyTorch FSDP full sharding): parameters all-gathered before
	// each layer's forward and backward, gradients reduce-scattered.
	ShardZeRO3
)

// String is the sharding's name as Parse reads it.
func (s Sharding) String() string {
	switch s {
	case ShardNone:
		return "none"
	case ShardZeRO1:
		return "zero1"
	case ShardZeRO2:
		return "zero2"
	case ShardZeRO3:
		return "zero3"
	}
	return fmt.Sprintf("sharding(%d)", int(s))
}

// ParseSharding reads none, distributed or zero1, zero2, zero3 or fsdp
// (also 0..3).
func ParseSharding(s string) (Sharding, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "no", "0", "":
		return ShardNone, nil
	case "zero1", "1", "distributed", "distributed-optimizer":
		return ShardZeRO1, nil
	case "zero2", "2":
		return ShardZeRO2, nil
	case "zero3", "3", "fsdp":
		return ShardZeRO3, nil
	}
	return 0, fmt.Errorf("%w: field sharding = %q (valid: none, zero1 or distributed, zero2, zero3 or fsdp; or 0-3)", ErrLayout, s)
}

// Recompute is the activation recomputation mode (Korthikanti et al. 2022,
// "Reducing Activation Recomputation in Large Transformer Models",
// sections 4.2-4.3).
type Recompute int

// Recomputation modes.
const (
	// RecomputeNone keeps every activation the backward reads.
	RecomputeNone Recompute = iota
	// RecomputeSelective recomputes the attention core (QK^T, softmax,
	// dropout, attention over V) in the backward.
	RecomputeSelective
	// RecomputeFull keeps only each layer's input and recomputes the
	// layer's forward in the backward.
	RecomputeFull
)

// String is the mode's name as Parse reads it.
func (r Recompute) String() string {
	switch r {
	case RecomputeNone:
		return "none"
	case RecomputeSelective:
		return "selective"
	case RecomputeFull:
		return "full"
	}
	return fmt.Sprintf("recompute(%d)", int(r))
}

// ParseRecompute reads none, selective or full.
func ParseRecompute(s string) (Recompute, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "no", "":
		return RecomputeNone, nil
	case "selective", "sel":
		return RecomputeSelective, nil
	case "full", "yes":
		return RecomputeFull, nil
	}
	return 0, fmt.Errorf("%w: field recompute = %q (valid: none, selective, full)", ErrLayout, s)
}

// Precision is the training precision: mixed precision with FP32 master
// weights and Adam state, compute and activations in BF16 or FP16, or FP8
// matrix multiplications as Transformer Engine runs them (BF16 elsewhere).
type Precision string

// Precisions.
const (
	BF16 Precision = "bf16"
	FP16 Precision = "fp16"
	FP8  Precision = "fp8"
)

// ParsePrecision reads bf16, fp16 or fp8.
func ParsePrecision(s string) (Precision, error) {
	switch p := Precision(strings.ToLower(strings.TrimSpace(s))); p {
	case BF16, FP16, FP8:
		return p, nil
	}
	return "", fmt.Errorf("%w: field precision = %q (valid: bf16, fp16, fp8)", ErrLayout, s)
}

// Schedule is the pipeline schedule.
type Schedule string

// Pipeline schedules.
const (
	// Schedule1F1B is PipeDream-Flush / Megatron's 1F1B (Narayanan et al.
	// SC'21 section 2.2.1), interleaved when VP > 1 (section 2.2.2).
	Schedule1F1B Schedule = "1f1b"
	// ScheduleGPipe runs every micro-batch's forward, then every
	// backward (Huang et al. 2019).
	ScheduleGPipe Schedule = "gpipe"
)

// Layout is the parallel layout of one training job. GPUs = TP·PP·CP·DP;
// the experts of each MoE layer are spread over EP of the DP·CP ranks.
// The zero value is not valid; use Default or Parse.
type Layout struct {
	// TP is the tensor-parallel size (Megatron's column/row-parallel
	// attention and MLP; Shoeybi et al. 2019).
	TP int
	// PP is the number of pipeline stages (physical).
	PP int
	// VP is the number of virtual stages (model chunks) per pipeline rank:
	// 1 is plain 1F1B, > 1 the interleaved schedule.
	VP int
	// CP is the context-parallel size (the sequence split over CP GPUs,
	// K/V exchanged in a ring inside attention).
	CP int
	// EP is the expert-parallel size (MoE layers only).
	EP int
	// DP is the data-parallel size.
	DP int
	// SequenceParallel splits norms and dropout along the sequence within
	// the TP group (all-gather/reduce-scatter instead of all-reduce;
	// Korthikanti et al. 2022 section 4.2.2).
	SequenceParallel bool
	// TPOverlap overlaps the tensor-parallel all-gathers and
	// reduce-scatters with the GEMMs that consume or produce them, as
	// Transformer Engine's userbuffers do (Megatron-LM --tp-comm-overlap,
	// NeMo's MegatronCommOverlapCallback tp_comm_overlap): needs sequence
	// parallelism (megatron/training/arguments.py asserts it).
	TPOverlap bool
	// Sharding of the model state over the DP ranks.
	Sharding Sharding
	// Recompute is the activation recomputation mode.
	Recompute Recompute
	// MicroBatch is sequences per micro-batch on one pipeline.
	MicroBatch int
	// GlobalBatch is sequences per iteration over all GPUs.
	GlobalBatch int
	// Precision of compute and activations.
	Precision Precision
	// Schedule is the pipeline schedule (1F1B, interleaved when VP > 1;
	// or GPipe).
	Schedule Schedule
}

// Default is the layout of one GPU: every size 1, one sequence per
// micro-batch and per iteration, no sharding or recomputation, BF16, 1F1B.
func Default() Layout {
	return Layout{TP: 1, PP: 1, VP: 1, CP: 1, EP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 0, Precision: BF16, Schedule: Schedule1F1B}
}

// GPUs is TP·PP·CP·DP.
func (l Layout) GPUs() int { return l.TP * l.PP * l.CP * l.DP }

// MicroBatches is the number of micro-batches each pipeline runs per
// iteration (gradient accumulation steps): GlobalBatch / (MicroBatch·DP).
func (l Layout) MicroBatches() int {
	if l.MicroBatch <= 0 || l.DP <= 0 {
		return 0
	}
	return l.GlobalBatch / (l.MicroBatch * l.DP)
}

// Interleaved reports whether the schedule is interleaved 1F1B.
func (l Layout) Interleaved() bool { return l.VP > 1 && l.Schedule == Schedule1F1B }

// Syntax is Parse's grammar, for help texts.
const Syntax = `comma-separated KEY=VALUE: tp, pp, vp, cp, ep, dp (sizes >= 1), sp (sequence parallelism; or sp=yes|no), ` +
	`tpoverlap (tensor-parallel communication overlapped with GEMMs, Transformer Engine userbuffers; needs sp), ` +
	`zero=0|1|2|3 or sharding=none|distributed|zero1|zero2|zero3|fsdp (or the bare words distributed, fsdp), ` +
	`recompute=none|selective|full, mbs=N (sequences per micro-batch), gbs=N (sequences per iteration; default mbs*dp), ` +
	`precision=bf16|fp16|fp8, schedule=1f1b|gpipe; e.g. tp=4,pp=4,cp=2,dp=2,vp=5,sp,zero=1,recompute=selective,mbs=1,gbs=128,precision=bf16`

// Parse reads the one-line form (see Syntax), then validates it. Keys
// not given keep Default's values; gbs not given is mbs·dp (one
// micro-batch per pipeline).
func Parse(s string) (Layout, error) {
	l := Default()
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, hasVal := strings.Cut(part, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.TrimSpace(val)
		canon := key
		switch key {
		case "zero", "sharding", "fsdp", "distributed":
			canon = "sharding"
		case "mbs", "micro_batch", "microbatch":
			canon = "mbs"
		case "gbs", "global_batch", "globalbatch":
			canon = "gbs"
		case "tpoverlap", "tp_comm_overlap":
			canon = "tpoverlap"
		}
		if seen[canon] {
			return Layout{}, fmt.Errorf("%w %q: field %s given twice", ErrLayout, s, canon)
		}
		seen[canon] = true
		intField := func(dst *int, name string) error {
			if !hasVal {
				return fmt.Errorf("%w %q: field %s has no value (valid range: an integer >= 1)", ErrLayout, s, name)
			}
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return fmt.Errorf("%w %q: field %s = %q (valid range: an integer >= 1)", ErrLayout, s, name, val)
			}
			*dst = n
			return nil
		}
		var err error
		switch key {
		case "tp":
			err = intField(&l.TP, key)
		case "pp":
			err = intField(&l.PP, key)
		case "vp":
			err = intField(&l.VP, key)
		case "cp":
			err = intField(&l.CP, key)
		case "ep":
			err = intField(&l.EP, key)
		case "dp":
			err = intField(&l.DP, key)
		case "mbs", "micro_batch", "microbatch":
			err = intField(&l.MicroBatch, "mbs")
		case "gbs", "global_batch", "globalbatch":
			err = intField(&l.GlobalBatch, "gbs")
		case "sp", "sequence_parallel":
			switch strings.ToLower(val) {
			case "", "yes", "true", "1", "on":
				l.SequenceParallel = true
			case "no", "false", "0", "off":
				l.SequenceParallel = false
			default:
				err = fmt.Errorf("%w %q: field sp = %q (valid: sp, sp=yes, sp=no)", ErrLayout, s, val)
			}
		case "tpoverlap", "tp_comm_overlap":
			switch strings.ToLower(val) {
			case "", "yes", "true", "1", "on":
				l.TPOverlap = true
			case "no", "false", "0", "off":
				l.TPOverlap = false
			default:
				err = fmt.Errorf("%w %q: field tpoverlap = %q (valid: tpoverlap, tpoverlap=yes, tpoverlap=no)", ErrLayout, s, val)
			}
		case "fsdp":
			if hasVal {
				err = fmt.Errorf("%w %q: field fsdp takes no value (write fsdp or sharding=fsdp)", ErrLayout, s)
			}
			l.Sharding = ShardZeRO3
		case "distributed":
			if hasVal {
				err = fmt.Errorf("%w %q: field distributed takes no value (write distributed or zero=1)", ErrLayout, s)
			}
			l.Sharding = ShardZeRO1
		case "zero", "sharding":
			l.Sharding, err = ParseSharding(val)
		case "recompute":
			l.Recompute, err = ParseRecompute(val)
		case "precision":
			l.Precision, err = ParsePrecision(val)
		case "schedule":
			switch Schedule(strings.ToLower(val)) {
			case Schedule1F1B, "interleaved":
				l.Schedule = Schedule1F1B
			case ScheduleGPipe:
				l.Schedule = ScheduleGPipe
			default:
				err = fmt.Errorf("%w %q: field schedule = %q (valid: 1f1b, gpipe)", ErrLayout, s, val)
			}
		default:
			err = fmt.Errorf("%w %q: unknown field %q (valid: %s)", ErrLayout, s, key, Syntax)
		}
		if err != nil {
			return Layout{}, err
		}
	}
	if l.GlobalBatch == 0 {
		l.GlobalBatch = l.MicroBatch * l.DP
	}
	if err := l.Validate(); err != nil {
		return Layout{}, err
	}
	return l, nil
}

// String is l in Parse's form, every field written (Parse(l.String())
// gives l back).
func (l Layout) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tp=%d,pp=%d,vp=%d,cp=%d,ep=%d,dp=%d", l.TP, l.PP, l.VP, l.CP, l.EP, l.DP)
	if l.SequenceParallel {
		b.WriteString(",sp")
	}
	if l.TPOverlap {
		b.WriteString(",tpoverlap")
	}
	fmt.Fprintf(&b, ",zero=%d,recompute=%s,mbs=%d,gbs=%d,precision=%s", int(l.Sharding), l.Recompute, l.MicroBatch, l.GlobalBatch, l.Precision)
	if l.Schedule != Schedule1F1B {
		fmt.Fprintf(&b, ",schedule=%s", l.Schedule)
	}
	return b.String()
}

// Validate checks every field and their relations; the error names the
// field and its valid range.
func (l Layout) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"tp", l.TP}, {"pp", l.PP}, {"vp", l.VP}, {"cp", l.CP}, {"ep", l.EP}, {"dp", l.DP}, {"mbs", l.MicroBatch}, {"gbs", l.GlobalBatch}} {
		if f.v < 1 {
			return fmt.Errorf("%w: field %s = %d (valid range: >= 1)", ErrLayout, f.name, f.v)
		}
		if f.v > 1<<20 {
			return fmt.Errorf("%w: field %s = %d (valid range: 1 to %d)", ErrLayout, f.name, f.v, 1<<20)
		}
	}
	if g := int64(l.TP) * int64(l.PP) * int64(l.CP) * int64(l.DP); g > 1<<22 {
		return fmt.Errorf("%w: tp*pp*cp*dp = %d GPUs (valid range: 1 to %d)", ErrLayout, g, 1<<22)
	}
	if l.Sharding < ShardNone || l.Sharding > ShardZeRO3 {
		return fmt.Errorf("%w: field sharding = %d (valid range: 0-3)", ErrLayout, int(l.Sharding))
	}
	if l.Recompute < RecomputeNone || l.Recompute > RecomputeFull {
		return fmt.Errorf("%w: field recompute = %d (valid: none, selective, full)", ErrLayout, int(l.Recompute))
	}
	if _, err := ParsePrecision(string(l.Precision)); err != nil {
		return err
	}
	if l.Schedule != Schedule1F1B && l.Schedule != ScheduleGPipe {
		return fmt.Errorf("%w: field schedule = %q (valid: 1f1b, gpipe)", ErrLayout, l.Schedule)
	}
	if l.SequenceParallel && l.TP == 1 {
		return fmt.Errorf("%w: field sp needs tp >= 2 (sequence parallelism splits within the tensor-parallel group; tp = 1)", ErrLayout)
	}
	if l.TPOverlap && !l.SequenceParallel {
		return fmt.Errorf("%w: field tpoverlap needs sp (tensor-parallel communication overlaps GEMMs only with sequence parallelism; Megatron-LM asserts it)", ErrLayout)
	}
	if l.VP > 1 && l.PP == 1 {
		return fmt.Errorf("%w: field vp = %d needs pp >= 2 (virtual stages interleave a pipeline)", ErrLayout, l.VP)
	}
	if l.VP > 1 && l.Schedule == ScheduleGPipe {
		return fmt.Errorf("%w: field vp = %d with schedule=gpipe (valid: vp = 1 with gpipe; interleaving is a 1F1B schedule)", ErrLayout, l.VP)
	}
	if (l.DP*l.CP)%l.EP != 0 {
		return fmt.Errorf("%w: field ep = %d must divide dp*cp = %d (experts are spread over the data- and context-parallel ranks)", ErrLayout, l.EP, l.DP*l.CP)
	}
	if l.GlobalBatch%(l.MicroBatch*l.DP) != 0 {
		return fmt.Errorf("%w: field gbs = %d must be a multiple of mbs*dp = %d (valid: k*%d, k >= 1)", ErrLayout, l.GlobalBatch, l.MicroBatch*l.DP, l.MicroBatch*l.DP)
	}
	// Megatron-LM requires the micro-batches of an interleaved pipeline
	// to be a multiple of the pipeline size (schedules.py,
	// forward_backward_pipelining_with_interleaving).
	if l.Interleaved() && l.MicroBatches()%l.PP != 0 {
		return fmt.Errorf("%w: interleaved schedule (vp = %d) with %d micro-batches: gbs/(mbs*dp) must be a multiple of pp = %d", ErrLayout, l.VP, l.MicroBatches(), l.PP)
	}
	return nil
}
