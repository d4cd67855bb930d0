package llm

import "fmt"

// Task is one chunk of work of a pipeline rank: the forward or backward
// of one micro-batch through one of its model chunks (virtual stages).
type Task struct {
	// Backward is false for a forward.
	Backward bool
	// MicroBatch is the micro-batch, from 0.
	MicroBatch int
	// Chunk is the model chunk on this rank, from 0; the virtual stage is
	// Chunk*PP + rank (Megatron-LM's interleaved assignment).
	Chunk int
}

// String is "F3.1" (forward of micro-batch 3 through chunk 1) or "B3.1".
func (t Task) String() string {
	c := 'F'
	if t.Backward {
		c = 'B'
	}
	return fmt.Sprintf("%c%d.%d", c, t.MicroBatch, t.Chunk)
}

// Order is the sequence of tasks that pipeline rank `rank` of pp runs for
// m micro-batches and vp chunks per rank under the schedule: "gpipe" (all
// forwards, then all backwards in the same order), or "1f1b" (plain
// 1F1B when vp = 1, Megatron-LM's interleaved 1F1B otherwise).
//
// The interleaved order follows megatron/core/pipeline_parallel/
// schedules.py (NVIDIA/Megatron-LM, forward_backward_pipelining_with_
// interleaving, get_pp_rank_microbatches and get_schedule_table, with
// microbatch_group_size_per_vp_stage = pp, its default): the virtual
// micro-batches are taken in groups of pp micro-batches, each group
// through chunk 0, then chunk 1, ...; a rank runs
// (pp-rank-1)*2 + (vp-1)*pp warm-up forwards, then alternates one forward
// and one backward, then drains the backwards; the k-th backward goes
// through chunk vp-1-c of the table's k-th entry (micro-batch, c).
// Plain 1F1B (schedules.py, forward_backward_pipelining_without_
// interleaving) runs pp-rank-1 warm-up forwards.
func Order(schedule string, pp, vp, m, rank int) ([]Task, error) {
	if pp < 1 || vp < 1 || m < 1 || rank < 0 || rank >= pp {
		return nil, fmt.Errorf("%w: schedule of pp=%d vp=%d micro-batches=%d rank=%d (valid: all >= 1, 0 <= rank < pp)", ErrJob, pp, vp, m, rank)
	}
	var out []Task
	switch schedule {
	case "gpipe":
		if vp != 1 {
			return nil, fmt.Errorf("%w: gpipe with vp=%d (valid: vp=1)", ErrJob, vp)
		}
		for i := 0; i < m; i++ {
			out = append(out, Task{MicroBatch: i})
		}
		for i := 0; i < m; i++ {
			out = append(out, Task{Backward: true, MicroBatch: i})
		}
		return out, nil
	case "1f1b":
	default:
		return nil, fmt.Errorf("%w: schedule %q (valid: gpipe, 1f1b)", ErrJob, schedule)
	}
	if vp == 1 {
		warm := min(pp-rank-1, m)
		f, b := 0, 0
		for ; f < warm; f++ {
			out = append(out, Task{MicroBatch: f})
		}
		for f < m {
			out = append(out, Task{MicroBatch: f})
			f++
			out = append(out, Task{Backward: true, MicroBatch: b})
			b++
		}
		for ; b < m; b++ {
			out = append(out, Task{Backward: true, MicroBatch: b})
		}
		return out, nil
	}
	if m%pp != 0 {
		return nil, fmt.Errorf("%w: interleaved schedule with %d micro-batches (valid: a multiple of pp = %d)", ErrJob, m, pp)
	}
	// get_schedule_table with groups of pp micro-batches
	type entry struct{ mb, chunk int }
	var table []entry
	for lo := 0; lo < m; lo += pp {
		hi := min(lo+pp, m)
		for c := 0; c < vp; c++ {
			for mb := lo; mb < hi; mb++ {
				table = append(table, entry{mb, c})
			}
		}
	}
	total := m * vp
	warm := min((pp-rank-1)*2+(vp-1)*pp, total)
	fwd := func(k int) Task { return Task{MicroBatch: table[k].mb, Chunk: table[k].chunk} }
	bwd := func(k int) Task { return Task{Backward: true, MicroBatch: table[k].mb, Chunk: vp - 1 - table[k].chunk} }
	for k := 0; k < warm; k++ {
		out = append(out, fwd(k))
	}
	b := 0
	for k := warm; k < total; k++ {
		out = append(out, fwd(k), bwd(b))
		b++
	}
	for ; b < total; b++ {
		out = append(out, bwd(b))
	}
	return out, nil
}
