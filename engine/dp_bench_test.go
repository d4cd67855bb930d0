package engine_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads/zoo"
)

// dgxH100YAML is a cluster file of n DGX H100 nodes (8 H100 each on an
// NVSwitch with 18 NVLink 4 links, one 400 Gb/s NDR adapter per GPU on
// PCIe 5, every adapter on one InfiniBand switch), written with the
// cluster-file format every commit since eab3aa1 reads, so the same
// benchmark runs on that commit to measure a speed-up in one session.
func dgxH100YAML(nodes int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "name: dgx-h100-x%d\ndevices:\n", nodes)
	for n := 0; n < nodes; n++ {
		for g := 0; g < 8; g++ {
			fmt.Fprintf(&b, "  - {name: n%d-gpu%d, kind: H100-80GB}\n", n, g)
		}
	}
	b.WriteString("endpoints:\n  - {name: ib, type: net-switch}\n")
	for n := 0; n < nodes; n++ {
		fmt.Fprintf(&b, "  - {name: n%d-nvs, type: nvswitch}\n", n)
		for g := 0; g < 8; g++ {
			fmt.Fprintf(&b, "  - {name: n%d-nic%d, type: nic}\n", n, g)
		}
	}
	b.WriteString("links:\n")
	for n := 0; n < nodes; n++ {
		for g := 0; g < 8; g++ {
			fmt.Fprintf(&b, "  - {between: [n%d-gpu%d, n%d-nvs], kind: nvlink4, width: 18}\n", n, g, n)
			fmt.Fprintf(&b, "  - {between: [n%d-gpu%d, n%d-nic%d], kind: pcie5}\n", n, g, n, g)
			fmt.Fprintf(&b, "  - {between: [n%d-nic%d, ib], kind: ib-ndr}\n", n, g)
		}
	}
	return []byte(b.String())
}

// BenchmarkDataParallelGPT2XL plays one training step of GPT-2 XL
// (zoo:gpt?size=xl) data-parallel over 256 and 1,024 H100 (dp:N: each
// replica on one GPU, one all-reduce of the gradients) in the classic
// engine. Reports steps simulated per second and the heap after a step.
// Identical replicas are played once by symmetry (see engine/symmetry.go);
// to measure against an older commit, copy this file into its tree.
func BenchmarkDataParallelGPT2XL(b *testing.B) {
	g, err := zoo.Build("gpt?size=xl&training=true&batch=1024")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{256, 1024} {
		b.Run(fmt.Sprintf("gpus=%d", n), func(b *testing.B) {
			c, err := devices.ParseCluster(dgxH100YAML(n / 8))
			if err != nil {
				b.Fatal(err)
			}
			plan := &engine.Plan{Device: make([]int, len(g.Ops)), DataParallel: &engine.DataParallel{Replicas: n}}
			// reading the cluster file is not the step: not timed (its
			// routes are found on first use, in the step)
			b.ResetTimer()
			b.ReportAllocs()
			var ms runtime.MemStats
			var step float64
			for i := 0; i < b.N; i++ {
				r, err := engine.Simulate(g, c, plan, engine.Options{})
				if err != nil {
					b.Fatal(err)
				}
				step = r.StepTime
				runtime.ReadMemStats(&ms)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "iterations/s")
			b.ReportMetric(float64(ms.HeapAlloc)/1e6, "heapMB")
			b.ReportMetric(step*1e3, "step-ms")
		})
	}
}
