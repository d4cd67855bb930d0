package cli_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// train shows where the exposed DP and PP time went per link class, in
// the text and the JSON output (issue 26's 70B must-show, on a 4:1
// fat-tree with one node per leaf so that the DP groups cross leaves).
func TestTrainExposedByLink(t *testing.T) {
	args := []string{"train", "-w", "zoo:llama3.1-70b", "-c", "dgx-h100:nodes=8,fabric=fat-tree,oversubscription=4,leaf=8",
		"--layout", "tp=4,pp=4,cp=2,dp=2,vp=5,sp,zero=1,mbs=1,gbs=128"}
	code, out, errs := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"DP by link", "PP by link", "NVLink", "adapters", "leaf uplinks", "groups cross leaf uplinks"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = run(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rec struct {
		LLM struct {
			Exposed map[string]float64 `json:"exposedComm"`
			ByLink  struct {
				DP, PP   map[string]float64
				DPGroups string `json:"dpGroups"`
				Exact    bool   `json:"exact"`
			} `json:"exposedByLink"`
		} `json:"llm"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	v := rec.LLM
	const tol = 1e-9 // seconds
	for _, kind := range []string{"DP", "PP"} {
		m := v.ByLink.DP
		if kind == "PP" {
			m = v.ByLink.PP
		}
		sum := m["nvlink"] + m["adapters"] + m["leafUplinks"]
		if len(m) != 3 || math.Abs(sum-v.Exposed[kind]) > tol {
			t.Errorf("%s by link %v sums to %g, exposedComm says %g", kind, m, sum, v.Exposed[kind])
		}
	}
	if v.ByLink.DPGroups != "leafUplinks" || !(v.ByLink.DP["leafUplinks"] > 0) || !v.ByLink.Exact {
		t.Errorf("exposedByLink %+v: want DP on leaf uplinks, found exactly", v.ByLink)
	}
}
