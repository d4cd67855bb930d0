package reports_test

import (
	"os"
	"placesim/runresult"

	"placesim/engine"
	"placesim/reports"
)

// ExampleCSV writes a two-run comparison, one of which ran out of memory,
// as CSV: rows sorted with runs that fit first.
func ExampleCSV() {
	rows := []*runresult.Record{
		{Point: runresult.Point{Placer: "single"}, StepTime: 0.004, Throughput: 32000, PeakMemory: []int64{20 << 30, 0}, Capacity: []int64{16 << 30, 16 << 30},
			OOM:    &engine.OOM{Device: 0, DeviceName: "gpu0", OpName: "fc3/matmul", Requested: 1 << 30},
			Result: &engine.Result{Devices: []engine.DeviceStats{{Name: "gpu0"}, {Name: "gpu1"}}}},
		{Point: runresult.Point{Placer: "round-robin"}, StepTime: 0.005, Throughput: 25600, PeakMemory: []int64{10 << 30, 10 << 30}, Capacity: []int64{16 << 30, 16 << 30},
			BytesMoved: 1 << 20, Transfers: 3, Result: &engine.Result{Devices: []engine.DeviceStats{{Name: "gpu0"}, {Name: "gpu1"}}}},
	}
	if err := reports.CSV(os.Stdout, rows); err != nil {
		panic(err)
	}
	// Output:
	// placer,regime,execution,status,stepTime,throughput,placeTime,bytesMoved,transfers,oomDevice,oomOp,oomRequested,error,notComparable,fallback,relaxed,regimeNote,rewritten,peakMemory:gpu0,peakMemory:gpu1,capacity:gpu0,capacity:gpu1
	// round-robin,step,step,ok,0.005,25600,,1048576,3,,,,,,,,,,10737418240,10737418240,17179869184,17179869184
	// single,step,step,oom,0.004,32000,,0,0,gpu0,fc3/matmul,1073741824,,,,,,,21474836480,0,17179869184,17179869184
}
