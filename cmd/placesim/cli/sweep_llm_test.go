package cli_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"placesim/study"
)

func TestSweepLLM(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "sweep", "-w", "zoo:llama3.1-8b", "-c", "dgx-h100:nodes=2;dgx-a100-80gb:nodes=2",
		"--layout", "tp=2,pp=2,dp=4,sp,zero=1,mbs=1,gbs=32", "--vary", "system.adapter-speed=100Gb/s,400Gb/s", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "dgx-a100-80gb:nodes=2") || !strings.Contains(out, "tok/s/GPU") {
		t.Fatalf("table:\n%s", out)
	}
	// results.json is in the one results schema: a record per point
	res, err := study.ReadResults(filepath.Join(dir, "results.json"))
	if err != nil || len(res.Records) != 4 {
		t.Fatalf("results.json: %v %+v", err, res)
	}
	// slower adapters never make an iteration faster
	rs := res.Records
	for i := 0; i < 4; i += 2 {
		if rs[i].LLM == nil || !(rs[i].StepTime >= rs[i+1].StepTime) || !strings.Contains(rs[i].LLM.System, "adapter-speed=100Gb/s") ||
			rs[i].Settings[0].Param != "system.adapter-speed" || rs[i].Settings[0].Value != "100Gb/s" {
			t.Fatalf("records %d, %d: %+v %+v", i, i+1, rs[i], rs[i+1])
		}
	}
	for _, f := range []string{"sweep_step_time.png", "sweep_step_time.svg", "table.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	// --format json prints results.json's content, csv a line per row
	args := []string{"sweep", "-w", "zoo:llama3.1-8b", "-c", "dgx-h100:nodes=2", "--layout", "tp=2,pp=2,dp=4,sp,zero=1,mbs=1,gbs=32", "--vary", "system.adapter-speed=100Gb/s,400Gb/s"}
	jdir := t.TempDir()
	code, out, errs = run(t, append(args, "--out", jdir, "--format", "json")...)
	data, _ := os.ReadFile(filepath.Join(jdir, "results.json"))
	if code != 0 || out != string(data) || !strings.Contains(errs, "wrote ") {
		t.Fatalf("--format json: exit %d, stdout is not results.json:\n%s\nstderr %s", code, out, errs)
	}
	code, out, errs = run(t, append(args, "--out", t.TempDir(), "--format", "csv")...)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(recs) != 3 || recs[0][7] != "stepTime" || recs[1][7] == "" {
		t.Fatalf("--format csv: exit %d, %v, %q\n%s", code, err, recs, errs)
	}
	for _, args := range [][]string{
		{"sweep", "-w", "zoo:llama3.1-8b", "-c", "dgx-h100", "--layout", "tp=2,dp=4", "--vary", "link.nvlink.bandwidth=2x"},
		{"sweep", "-w", "zoo:llama3.1-8b", "-c", "dgx-h100", "--layout", "tp=2,dp=4", "--vary", "system.colour=red"},
		{"sweep", "-w", "zoo:llama3.1-8b", "-c", "dgx-h100", "--layout", "tp=2,dp=4", "--vary", "system.nvlink-domain=12", "--out", t.TempDir()},
	} {
		if code, _, errs := run(t, args...); code != 1 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// The chart of a sweep over the NVLink domain is one a reader can put in
// a paper: a title naming model, GPUs and layout, axis labels with units,
// a legend naming the systems, the stamp (issue 26).
func TestSweepLLMChartLabels(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := run(t, "sweep", "-w", "zoo:llama3.1-8b", "-c", "gb200-nvl72:racks=1,gpus=64;dgx-b200:nodes=8",
		"--layout", "tp=8,pp=2,dp=4,sp,zero=1,mbs=1,gbs=64", "--vary", "system.nvlink-domain=8,16,32", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "sweep_step_time.svg"))
	if err != nil {
		t.Fatal(err)
	}
	// the SVG's texts joined by spaces (a title wraps to the plot's width)
	var texts []string
	for _, m := range regexp.MustCompile(`>([^<]*)</text>`).FindAllStringSubmatch(string(svg), -1) {
		texts = append(texts, m[1])
	}
	text := strings.Join(texts, " ")
	for _, want := range []string{
		"llama3.1-8b on 64 GPUs (tp8 pp2 dp4 gbs 64): iteration time vs NVLink domain size",
		"NVLink domain size (GPUs)", "iteration time (ms)",
		"GB200 NVL72, 1 rack (64 GPUs)", "DGX B200, 8 nodes (64 GPUs)",
		"placesim ", "sweep -w zoo:llama3.1-8b --vary system.nvlink-domain=8,16,32",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	for _, bad := range []string{"Simulated step time", " step time (", "system.nvlink-domain "} {
		if strings.Contains(text, bad) {
			t.Errorf("chart still has %q", bad)
		}
	}
}
