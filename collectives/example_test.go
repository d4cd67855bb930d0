package collectives_test

import (
	"fmt"

	"placesim/collectives"
	"placesim/devices"
)

// An 8 GiB all-reduce over the 16 GPUs of two DGX H100 nodes, as
// nccl-tests' all_reduce_perf would report it.
func ExampleTime() {
	c, err := devices.NewSystem("dgx-h100:nodes=2")
	if err != nil {
		panic(err)
	}
	e, err := collectives.Time(c, c.Accelerators(), collectives.AllReduce, 8<<30)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s/%s, %d channels: %.1f ms, algbw %.0f GB/s, busbw %.0f GB/s\n",
		e.Algorithm, e.Protocol, e.Channels, e.Seconds*1e3, e.AlgBW/1e9, e.BusBW/1e9)
	// Output: nvls-tree/Simple, 8 channels: 35.0 ms, algbw 246 GB/s, busbw 461 GB/s
}
