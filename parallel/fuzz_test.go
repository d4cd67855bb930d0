package parallel

import "testing"

// FuzzParse: any input is a valid layout that round-trips through String,
// or an error; never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"tp=4,pp=4,cp=2,dp=2,vp=5,sp,zero=1,recompute=selective,mbs=1,gbs=128,precision=bf16", "dp=8,fsdp", "", "tp=0", "pp=2,vp=2,gbs=4", "sp=no,schedule=gpipe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			return
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("Parse(%q) returned an invalid layout: %v", s, err)
		}
		back, err := Parse(l.String())
		if err != nil || back != l {
			t.Fatalf("round trip of %q: %q -> %+v, %v", s, l.String(), back, err)
		}
	})
}
