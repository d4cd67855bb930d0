package parallel

import (
	"errors"
	"strings"
	"testing"
)

func TestParseFull(t *testing.T) {
	l, err := Parse("tp=4,pp=4,cp=2,dp=2,vp=5,sp,zero=1,recompute=selective,mbs=1,gbs=128,precision=bf16")
	if err != nil {
		t.Fatal(err)
	}
	want := Layout{TP: 4, PP: 4, VP: 5, CP: 2, EP: 1, DP: 2, SequenceParallel: true, Sharding: ShardZeRO1,
		Recompute: RecomputeSelective, MicroBatch: 1, GlobalBatch: 128, Precision: BF16, Schedule: Schedule1F1B}
	if l != want {
		t.Fatalf("got %+v\nwant %+v", l, want)
	}
	if l.GPUs() != 64 || l.MicroBatches() != 64 || !l.Interleaved() {
		t.Fatalf("GPUs %d micro-batches %d interleaved %v", l.GPUs(), l.MicroBatches(), l.Interleaved())
	}
	back, err := Parse(l.String())
	if err != nil || back != l {
		t.Fatalf("round trip %q: %+v, %v", l.String(), back, err)
	}
}

func TestParseDefaultsAndAliases(t *testing.T) {
	l, err := Parse("dp=8,fsdp")
	if err != nil {
		t.Fatal(err)
	}
	if l.Sharding != ShardZeRO3 || l.GlobalBatch != 8 || l.TP != 1 || l.Precision != BF16 {
		t.Fatalf("%+v", l)
	}
	for in, want := range map[string]Sharding{"sharding=distributed": ShardZeRO1, "zero=2": ShardZeRO2, "sharding=zero3": ShardZeRO3, "distributed": ShardZeRO1} {
		l, err := Parse(in)
		if err != nil || l.Sharding != want {
			t.Errorf("%s: %v %v", in, l.Sharding, err)
		}
	}
}

func TestParseErrorsNameField(t *testing.T) {
	for in, field := range map[string]string{
		"tp=0":                     "tp",
		"pp=x":                     "pp",
		"tp=2,tp=4":                "tp",
		"zero=5":                   "sharding",
		"recompute=half":           "recompute",
		"precision=fp4":            "precision",
		"bogus=1":                  "bogus",
		"sp":                       "sp",
		"pp=1,vp=2":                "vp",
		"dp=4,gbs=6":               "gbs",
		"pp=4,vp=2,gbs=6":          "pp",
		"dp=2,ep=4":                "ep",
		"schedule=zb":              "schedule",
		"pp=2,vp=2,schedule=gpipe": "vp",
	} {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("%s: no error", in)
			continue
		}
		if !errors.Is(err, ErrLayout) || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %q does not name %s", in, err, field)
		}
	}
}
