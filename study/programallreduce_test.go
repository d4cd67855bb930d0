package study_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/placers/builtin"
	"placesim/study"
)

// TestProgramAllReduceRow: a row naming NVIDIA's PyTorch BERT
// (dle-pt-bert) all-reduces its gradients as that program does, in one
// DDP bucket and, under --fp16 (amp-fp16 rows), as FP16: half the bytes
// of the same row without a program, which plays PyTorch DDP's 25 MiB
// buckets of FP32 gradients; a TF32 row of the program keeps FP32 bytes
// in its one bucket.
func TestProgramAllReduceRow(t *testing.T) {
	t.Parallel()
	const header = "id\tworkload\tcluster\tgpus\tprecision\tframework\tmeasured\tunit\ttokens_per_sample\tsource\tnote\tprogram\taccumulation\n"
	row := func(id, prec, prog string) string {
		return id + "\tzoo:bert?size=base&seq=128&training=true&batch=32\t8xA100-nvswitch\t2\t" + prec + "\tpytorch\t100\tsamples/s\t1\tnowhere\t\t" + prog + "\t4\n"
	}
	file := filepath.Join(t.TempDir(), "rows.tsv")
	text := header + row("ddp", "amp-fp16", "-") + row("pt", "amp-fp16", "dle-pt-bert") + row("pt32", "tf32", "dle-pt-bert")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := study.ReadValidation(file)
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := builtin.NewRegistry()
	comm := func(id string) *study.ExplainComm {
		t.Helper()
		e, err := study.Explain(context.Background(), reg, rows, id, filepath.Dir(file))
		if err != nil {
			t.Fatal(err)
		}
		if e.Comm == nil {
			t.Fatalf("%s: no all-reduce", id)
		}
		return e.Comm
	}
	ddp, pt, pt32 := comm("ddp"), comm("pt"), comm("pt32")
	if ddp.AllReduces < 2 {
		t.Errorf("no program: %d all-reduces, want DDP's 25 MiB buckets of BERT-base's 440 MB of FP32 gradients", ddp.AllReduces)
	}
	if pt.AllReduces != 1 || pt32.AllReduces != 1 {
		t.Errorf("dle-pt-bert: %d and %d all-reduces, want one bucket", pt.AllReduces, pt32.AllReduces)
	}
	if pt.Bytes != ddp.Bytes/2 || pt32.Bytes != ddp.Bytes {
		t.Errorf("all-reduced %d bytes (fp16 model) and %d (tf32), want half and all of DDP's %d", pt.Bytes, pt32.Bytes, ddp.Bytes)
	}
	if !strings.Contains(pt.Model, "one bucket") || strings.Contains(ddp.Model, "one bucket") {
		t.Errorf("models %q and %q: the program's should say so, the framework's not", pt.Model, ddp.Model)
	}
}
