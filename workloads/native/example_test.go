package native_test

import (
	"fmt"
	"os"

	"placesim/workloads"
	"placesim/workloads/native"
)

// Write a small graph in the native format and read it back.
func Example() {
	g := workloads.NewGraph("tiny", 8)
	a := g.AddOp(workloads.Op{Name: "load", Type: "input", OutputBytes: 4096})
	b := g.AddOp(workloads.Op{Name: "fc", Type: "matmul", FLOPs: 2e6, OutputBytes: 1024, ParamBytes: 65536,
		Measured: map[string]float64{"V100-16GB": 25e-6}})
	g.AddEdge(a, b, 4096)

	if err := native.Write(os.Stdout, g); err != nil {
		fmt.Println(err)
		return
	}
	data, _ := native.Marshal(g)
	back, err := native.Parse(data, "tiny.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(back.Ops), "ops,", len(back.Edges), "edge, fc on V100:", back.Ops[1].Measured["V100-16GB"], "s")

	_, err = native.Parse([]byte(`{"format": "placesim-workload", "version": 1, "batch": 1,
  "ops": [{"name": "x", "outputBytes": -5}]}`), "bad.json")
	fmt.Println(err)
	// Output:
	// {
	//   "format": "placesim-workload",
	//   "version": 1,
	//   "name": "tiny",
	//   "batch": 8,
	//   "training": false,
	//   "ops": [
	//     {"name":"load","type":"input","outputBytes":4096},
	//     {"name":"fc","type":"matmul","flops":2000000,"outputBytes":1024,"paramBytes":65536,"measured":{"V100-16GB":0.000025}}
	//   ],
	//   "edges": [
	//     {"from":"load","to":"fc","bytes":4096}
	//   ]
	// }
	// 2 ops, 1 edge, fc on V100: 2.5e-05 s
	// workload "bad.json": line 2: ops[0].outputBytes: -5 (valid range: >= 0)
}
