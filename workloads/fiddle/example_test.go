package fiddle_test

import (
	"fmt"

	"placesim/workloads"
	"placesim/workloads/fiddle"
)

// ExampleParse reads a two-node msr-fiddle file: times are ms per sample in
// the file and seconds in the graph, an edge's cost becomes bytes on PCIe
// 3.0, and the file's machine becomes the graph's hint.
func ExampleParse() {
	data := []byte(`{"maxSizePerFPGA": 1e9, "maxFPGAs": 2, "maxCPUs": 1,
	  "nodes": [
	    {"id": 1, "name": "conv", "supportedOnFpga": 1, "cpuLatency": 8, "fpgaLatency": 2, "isBackwardNode": 0, "colorClass": 1, "size": 4096},
	    {"id": 2, "name": "conv_grad", "supportedOnFpga": true, "cpuLatency": 16, "fpgaLatency": 4, "isBackwardNode": true, "colorClass": 1, "size": 0}],
	  "edges": [{"sourceId": 1, "destId": 2, "cost": 0.5}]}`)
	g, err := fiddle.Parse(data, "example.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, op := range g.Ops {
		fmt.Printf("%s: %s, accelerator %g s, CPU %g s, %d bytes, colocation %s\n", op.Name, op.Role,
			op.Measured[workloads.MeasuredAccelerator], op.Measured[workloads.MeasuredCPU], op.ParamBytes, op.Colocation)
	}
	fmt.Printf("edge: %d bytes; machine: %d accelerators, %d CPUs, %d bytes each\n",
		g.Edges[0].Bytes, g.Hint.Accelerators, g.Hint.CPUs, g.Hint.AcceleratorMemory)
	// Output:
	// conv: forward, accelerator 0.002 s, CPU 0.008 s, 4096 bytes, colocation color1
	// conv_grad: backward, accelerator 0.004 s, CPU 0.016 s, 0 bytes, colocation color1
	// edge: 7875000 bytes; machine: 2 accelerators, 1 CPUs, 1000000000 bytes each
}
