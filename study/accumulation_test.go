package study_test

import (
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/study"
	"placesim/workloads"
)

// TestValidateAccumulation: a row with k gradient accumulation steps runs
// k micro-batches per all-reduce and update, T_acc = (k-1) (T_micro +
// T_add) + T_step, T_step the step the same row simulates without
// accumulation, and reports k batch / T_acc: above the row without
// accumulation, below batch / (T_micro + T_add), the bound of many
// micro-batches; on one GPU and on two (data parallel, where T_micro is the
// slowest GPU's compute).
func TestValidateAccumulation(t *testing.T) {
	t.Parallel()
	const k = 16
	header := strings.Replace(validationHeader, "note\n", "note\tprogram\taccumulation\n", 1)
	body := header +
		"one\tzoo:bert?size=base&layers=2&seq=128&training=true&batch=8\t1xV100\t1\tfp32\tpytorch\t100\tsamples/s\t1\tsrc\t\t-\t-\n" +
		"onek\tzoo:bert?size=base&layers=2&seq=128&training=true&batch=8\t1xV100\t1\tfp32\tpytorch\t100\tsamples/s\t1\tsrc\t\t-\t16\n" +
		"two\tzoo:bert?size=base&layers=2&seq=128&training=true&batch=16\t8xV100-nvlink\t2\tamp-fp16\tpytorch\t100\tsamples/s\t1\tsrc\t\t-\t1\n" +
		"twok\tzoo:bert?size=base&layers=2&seq=128&training=true&batch=16\t8xV100-nvlink\t2\tamp-fp16\tpytorch\t100\tsamples/s\t1\tsrc\t\t-\t16\n"
	s := validateText(t, body)
	const tol = 1e-9
	for _, pair := range [][2]int{{0, 1}, {2, 3}} {
		base, acc := s.Rows[pair[0]], s.Rows[pair[1]]
		batch := map[string]float64{"one": 8, "two": 16}[base.ID]
		a := acc.Accumulation
		if base.Accumulation != nil || a == nil || a.Steps != k {
			t.Fatalf("%s: accumulation %+v, %s: %+v; want none and %d steps", base.ID, base.Accumulation, acc.ID, a, k)
		}
		if !scalar.EqualWithinAbsOrRel(a.Step, batch/base.Simulated, tol, tol) {
			t.Errorf("%s: T_step %g, want the unaccumulated step %g", acc.ID, a.Step, batch/base.Simulated)
		}
		if !(a.Micro > 0 && a.Micro < a.Step && a.Add > 0) {
			t.Errorf("%s: T_micro %g, T_add %g against T_step %g: want 0 < T_micro < T_step, T_add > 0", acc.ID, a.Micro, a.Add, a.Step)
		}
		total := float64(k-1)*(a.Micro+a.Add) + a.Step
		if !scalar.EqualWithinAbsOrRel(a.Total, total, tol, tol) || !scalar.EqualWithinAbsOrRel(acc.Simulated, k*batch/total, tol, tol) {
			t.Errorf("%s: T_acc %g, simulated %g; want %g and %g", acc.ID, a.Total, acc.Simulated, total, k*batch/total)
		}
		if bound := batch / (a.Micro + a.Add); !(acc.Simulated > base.Simulated && acc.Simulated < bound) {
			t.Errorf("%s: %g samples/s, want between the unaccumulated %g and the many-micro-batch bound %g", acc.ID, acc.Simulated, base.Simulated, bound)
		}
	}
	bad := header + "a\tzoo:mlp?training=true&batch=8\t1xV100\t1\tfp32\tpytorch\t100\tsamples/s\t1\tsrc\t\t-\t0\n"
	if _, err := study.ReadValidation(writeValidation(t, bad)); !errors.Is(err, study.ErrValidationFile) || !strings.Contains(err.Error(), "column accumulation: \"0\"") {
		t.Errorf("accumulation 0: error %v, want one naming the column and its range", err)
	}
}

// TestAccumulationWords: the in-place add's 3 words per micro-batch, and
// NVIDIA's TensorFlow 1 BERT's clip by the global norm (3 more) and, under
// TF-AMP, the FP16 cast of every variable (1.5), the FP32 cast of every
// gradient (1.5), the loss scale's unscale (2) and the finiteness check
// (1.5): 6.5 more.
func TestAccumulationWords(t *testing.T) {
	tf := study.HostPrograms["dle-tf-bert"]
	fairseq := study.HostPrograms["fairseq"]
	tests := []struct {
		name string
		p    *study.HostProgram
		prec workloads.Precision
		want float64
	}{
		{"none", nil, workloads.PrecisionAMPFP16, 3},
		{"fairseq", &fairseq, workloads.PrecisionAMPFP16, 3},
		{"tf-bert fp32", &tf, workloads.PrecisionFP32, 6},
		{"tf-bert tf32", &tf, workloads.PrecisionTF32, 6},
		{"tf-bert amp", &tf, workloads.PrecisionAMPFP16, 12.5},
	}
	for _, tc := range tests {
		if got := study.AccumulationWords(tc.p, tc.prec); got != tc.want {
			t.Errorf("%s: AccumulationWords = %g, want %g", tc.name, got, tc.want)
		}
	}
}

// TestMicroBatchSync: NVIDIA's TensorFlow 1 BERT waits on every
// micro-batch for its Horovod all-reduce of batch_finite only on more than
// one GPU under mixed precision (half of Horovod's 5 ms cycle and the
// all-reduce's NCCL latency); no other program, GPU count or precision
// waits, and a validation row charges the wait to all k micro-batches.
func TestMicroBatchSync(t *testing.T) {
	t.Parallel()
	tf := study.HostPrograms["dle-tf-bert"]
	fairseq := study.HostPrograms["fairseq"]
	amp8 := 2.5e-3 + 8.4e-6 + 14*3.4e-6
	tests := []struct {
		name string
		p    *study.HostProgram
		prec workloads.Precision
		n    int
		want float64
	}{
		{"none", nil, workloads.PrecisionAMPFP16, 8, 0},
		{"fairseq", &fairseq, workloads.PrecisionAMPFP16, 8, 0},
		{"tf-bert amp 1 GPU", &tf, workloads.PrecisionAMPFP16, 1, 0},
		{"tf-bert fp32 8 GPUs", &tf, workloads.PrecisionFP32, 8, 0},
		{"tf-bert tf32 8 GPUs", &tf, workloads.PrecisionTF32, 8, 0},
		{"tf-bert amp 8 GPUs", &tf, workloads.PrecisionAMPFP16, 8, amp8},
	}
	for _, tc := range tests {
		if got := tc.p.MicroBatchSync(tc.prec, tc.n); !scalar.EqualWithinAbsOrRel(got, tc.want, 1e-15, 1e-12) {
			t.Errorf("%s: MicroBatchSync = %g s, want %g s", tc.name, got, tc.want)
		}
	}

	const k = 16
	header := strings.Replace(validationHeader, "note\n", "note\tprogram\taccumulation\n", 1)
	body := header +
		"amp\tzoo:bert?size=base&layers=2&seq=128&training=true&batch=16\t8xV100-nvlink\t2\tamp-fp16\ttensorflow-xla\t100\tsamples/s\t1\tsrc\t\tdle-tf-bert\t16\n" +
		"fp32\tzoo:bert?size=base&layers=2&seq=128&training=true&batch=16\t8xV100-nvlink\t2\tfp32\ttensorflow-xla\t100\tsamples/s\t1\tsrc\t\tdle-tf-bert\t16\n"
	s := validateText(t, body)
	const tol = 1e-9
	for i, want := range []float64{2.5e-3 + 8.4e-6 + 2*3.4e-6, 0} {
		r := s.Rows[i]
		a := r.Accumulation
		if a == nil || a.Steps != k {
			t.Fatalf("%s: accumulation %+v, want %d steps", r.ID, a, k)
		}
		if !scalar.EqualWithinAbsOrRel(a.Sync, want, 1e-15, 1e-12) {
			t.Errorf("%s: T_sync %g s, want %g s", r.ID, a.Sync, want)
		}
		total := float64(k-1)*(a.Micro+a.Add) + a.Step + k*want
		if !scalar.EqualWithinAbsOrRel(a.Total, total, tol, tol) || !scalar.EqualWithinAbsOrRel(r.Simulated, k*16/total, tol, tol) {
			t.Errorf("%s: T_acc %g, simulated %g; want %g and %g", r.ID, a.Total, r.Simulated, total, k*16/total)
		}
	}
}
