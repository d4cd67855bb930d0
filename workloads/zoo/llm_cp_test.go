package zoo

import "testing"

// TestCPMerge: ring attention's merge of the partial outputs appears
// with context parallelism only, after the flash kernel, moving
// (2 + 3(cp-1)) passes of the attention output forward and of the output
// and key/value gradients backward.
func TestCPMerge(t *testing.T) {
	m, err := LLMByName("llama3.1-70b")
	if err != nil {
		t.Fatal(err)
	}
	find := func(cp int) (LLMOp, bool, int) {
		ops := m.Ops(PartAttention, Shard{TP: 4, CP: cp, EP: 1, SP: true, MicroBatch: 1, ActBytes: 2})
		for i, op := range ops {
			if op.Name == "cp-merge" {
				return op, ops[i-1].Name == "flash-attention", i
			}
		}
		return LLMOp{}, false, -1
	}
	if _, _, i := find(1); i >= 0 {
		t.Errorf("cp=1 has a cp-merge op at %d", i)
	}
	for _, cp := range []int{2, 4} {
		op, afterFlash, i := find(cp)
		if i < 0 || !afterFlash {
			t.Fatalf("cp=%d: cp-merge at %d, after the flash kernel %v", cp, i, afterFlash)
		}
		T := float64(m.Seq) / float64(cp)
		nq := T * float64(m.Heads*m.headDim()) / 4
		nkv := T * float64(m.KVHeads*m.headDim()) / 4
		passes := 2 + 3*float64(cp-1)
		if want := int64(passes * 2 * nq); op.FwdBytes != want {
			t.Errorf("cp=%d: forward bytes %d, want %d", cp, op.FwdBytes, want)
		}
		if want := int64(passes * 2 * (nq + 2*nkv)); op.BwdBytes != want {
			t.Errorf("cp=%d: backward bytes %d, want %d", cp, op.BwdBytes, want)
		}
		if op.Saved != 0 {
			t.Errorf("cp=%d: cp-merge saves %d bytes", cp, op.Saved)
		}
	}
}
