package llm

import (
	"placesim/parallel"
	"placesim/workloads/zoo"
)

// PartTimes is what one micro-batch costs on a pipeline rank's
// representative, forward plus backward (recomputation and blocking
// tensor-, context- and expert-parallel communication included): what a
// stage planner weighs.
type PartTimes struct {
	// Embedding, Layer and Head in seconds.
	Embedding, Layer, Head float64
	// LayerState, EmbeddingState and HeadState are the bytes of model
	// state (weights, gradients, optimizer state after sharding) per GPU;
	// LayerActivations one micro-batch's saved activations of a layer.
	LayerState, EmbeddingState, HeadState, LayerActivations int64
	// Boundary is the bytes a stage sends the next per micro-batch.
	Boundary int64
}

// PartTimesOf prices the parts of j's model on pipeline rank 0's
// representative (every rank has the same devices in a uniform system).
func PartTimesOf(j *Job) (PartTimes, error) {
	var pt PartTimes
	l := j.Layout
	if err := j.checkExceptStages(); err != nil {
		return pt, err
	}
	c := newCoster(j, 0, newCollMemo(j.Cluster))
	m := &j.Model
	times := map[zoo.Part]float64{}
	for _, p := range []zoo.Part{zoo.PartAttention, zoo.PartMLP, zoo.PartEmbedding, zoo.PartHead} {
		pc, err := c.part(p)
		if err != nil {
			return pt, err
		}
		t := pc.fwd.total() + pc.bwd.total()
		if p == zoo.PartAttention || p == zoo.PartMLP {
			switch l.Recompute {
			case parallel.RecomputeFull:
				t += pc.fwd.total()
			case parallel.RecomputeSelective:
				t += pc.recSel.total()
			}
			t += pc.recMod.total()
		}
		times[p] = t
	}
	pt.Embedding, pt.Head = times[zoo.PartEmbedding], times[zoo.PartHead]
	pt.Layer = times[zoo.PartAttention] + times[zoo.PartMLP]
	wb, gb, ob := j.stateBytes()
	d := int64(l.DP * l.CP)
	state := func(p zoo.Part) int64 {
		dense, expert := m.Params(p, c.sh)
		w1, g1, o1 := shardState(l.Sharding, d, dense*wb, dense*gb, dense*ob)
		w2, g2, o2 := shardState(l.Sharding, max(1, d/int64(l.EP)), expert*wb, expert*gb, expert*ob)
		return w1 + g1 + o1 + w2 + g2 + o2
	}
	pt.LayerState = state(zoo.PartAttention) + state(zoo.PartMLP)
	pt.EmbeddingState, pt.HeadState = state(zoo.PartEmbedding), state(zoo.PartHead)
	pt.LayerActivations = m.ActivationBytesPerLayer(c.sh, l.Recompute.String())
	T := int64(l.MicroBatch) * int64(m.Seq) / int64(l.CP)
	pt.Boundary = 2 * T * int64(m.Hidden)
	if l.SequenceParallel {
		pt.Boundary /= int64(l.TP)
	}
	return pt, nil
}
