package llm

import "placesim/workloads/zoo"

// OpCost is one kernel of a part on pipeline rank 0's representative for
// one micro-batch: its forward and backward time and, where a modelled
// mechanism accounts for part of it, that mechanism and the time it adds
// (forward plus backward).
type OpCost struct {
	Part              string
	Op                string
	Forward, Backward float64
	// Mechanism names what Extra is: "attention head dim" (a flash kernel
	// with a head dimension below 128 runs slower than the GEMM
	// efficiency says; flashHeadDimFactor), "host-issued kernels" (a
	// run of small eager kernels bounded by the host's issue rate;
	// hostIssue), or the op itself ("sort by expert", "eager expert
	// bias", "context-parallel merge"), "unfused YaRN rotary" (the time beyond the fused rotary
	// kernel) where the whole op is the mechanism; "" for none.
	Mechanism string
	Extra     float64
	// Recomputed: the op's module is among the job's RecomputeModules,
	// so its forward runs again in the backward.
	Recomputed bool `json:"recomputed,omitempty"`
}

// OpCosts prices every kernel of j's model on pipeline rank 0's
// representative (every rank has the same devices in a uniform system),
// one micro-batch forward and backward, communication excluded: what
// `placesim validate llm.tsv --explain` lists.
func OpCosts(j *Job) ([]OpCost, error) {
	if err := j.checkExceptStages(); err != nil {
		return nil, err
	}
	c := newCoster(j, 0, newCollMemo(j.Cluster))
	var out []OpCost
	for _, p := range []zoo.Part{zoo.PartEmbedding, zoo.PartAttention, zoo.PartMLP, zoo.PartHead} {
		for _, op := range j.Model.Ops(p, c.sh) {
			f, b, err := c.opTimes(op)
			if err != nil {
				return nil, err
			}
			oc := OpCost{Part: p.String(), Op: op.Name, Forward: f, Backward: b,
				Recomputed: j.recomputesModule(op)}
			// the same op without the mechanism
			plain := op
			plain.Launches, plain.BwdLaunches = 0, 0
			switch {
			case op.Name == "sort-chunks" || op.Name == "unsort-chunks":
				oc.Mechanism, oc.Extra = "sort by expert", f+b
			case op.Name == "expert-bias":
				oc.Mechanism, oc.Extra = "eager expert bias", f+b
			case op.Name == "cp-merge":
				oc.Mechanism, oc.Extra = "context-parallel merge", f+b
			case op.Name == "expert-clamp":
				oc.Mechanism, oc.Extra = "eager GLU clamp", f+b
			case op.Name == "rotary" && j.Model.YaRNFactor > 1:
				// against the fused kernel plain RoPE runs
				fused := j.Model
				fused.YaRNFactor = 0
				for _, fo := range fused.Ops(p, c.sh) {
					if fo.Name != "rotary" {
						continue
					}
					pf, pb, err := c.opTimes(fo)
					if err != nil {
						return nil, err
					}
					oc.Mechanism, oc.Extra = "unfused YaRN rotary", f+b-pf-pb
				}
			case isFlash(op) && flashHeadDimFactor(headDim(&j.Model), false) < 1:
				d := headDim(&j.Model)
				oc.Mechanism = "attention head dim"
				oc.Extra = f*(1-flashHeadDimFactor(d, false)) + b*(1-flashHeadDimFactor(d, true))
			case op.Launches > 0 || op.BwdLaunches > 0:
				pf, pb, err := c.opTimes(plain)
				if err != nil {
					return nil, err
				}
				if x := f + b - pf - pb; x > 0 {
					oc.Mechanism, oc.Extra = "host-issued kernels", x
				}
			}
			out = append(out, oc)
		}
	}
	return out, nil
}
