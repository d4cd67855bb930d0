package llm

import (
	"math"
	"strings"
	"testing"
)

// TestDomainSpreadSawTooth: 405B at tp=8, pp=8, dp=16 on 1,024 GB200s.
// On 24-GPU NVLink domains pipeline rank 0's data-parallel group spreads
// 1+3+3+3+3+3, so its gradient reduction is exposed about as long as on
// 8-GPU domains (one member each) and longer than on 32-GPU domains (4
// each); the result's notes say so for 24 and nothing for 32.
func TestDomainSpreadSawTooth(t *testing.T) {
	const layout = "tp=8,pp=8,vp=2,dp=16,sp,zero=1,mbs=1,gbs=512"
	dp := map[int]float64{}
	notes := map[int]string{}
	for _, d := range []int{8, 24, 32} {
		j := job(t, "zoo:llama3.1-405b", layout, "gb200-nvl72:racks=15,gpus=1024,nvlink-domain="+itoa(d))
		r, err := Simulate(j)
		if err != nil {
			t.Fatal(err)
		}
		dp[d] = r.Exposed[CommDP]
		notes[d] = strings.Join(r.Notes, "\n")
	}
	const tol = 0.1 // relative
	if math.Abs(dp[24]/dp[8]-1) > tol {
		t.Errorf("exposed DP on 24-GPU domains %.3f s, on 8-GPU domains %.3f s: not within %g", dp[24], dp[8], tol)
	}
	if !(dp[32] < dp[24]/2) {
		t.Errorf("exposed DP on 32-GPU domains %.3f s not below half of 24's %.3f s", dp[32], dp[24])
	}
	if !strings.Contains(notes[24], "pipeline rank 0's data-parallel group spreads unevenly over the NVLink domains ([1 3 3 3 3 3]") {
		t.Errorf("24-GPU domains: notes %q", notes[24])
	}
	if strings.Contains(notes[32], "spreads unevenly") {
		t.Errorf("32-GPU domains: notes %q", notes[32])
	}
}
