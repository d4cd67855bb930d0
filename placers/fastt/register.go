package fastt

import (
	"strconv"

	"placesim/placers"
)

// dataParallelDecls declares the options of data-parallel, which DPOS and
// OS-DPOS share for their data-parallel start.
func dataParallelDecls() []placers.Option {
	return []placers.Option{
		{Name: "bucket", Type: placers.Int, Default: strconv.Itoa(DefaultBucketBytes), Min: 0, Max: 1 << 40,
			Doc: "all-reduce bucket size in bytes; 0: one bucket"},
		{Name: "overlap", Type: placers.Bool, Default: "true",
			Doc: "overlap the all-reduce buckets with the backward pass"},
	}
}

// dposDecls declares the options of fastt-dpos (and, with split, those
// fastt-os-dpos adds).
func dposDecls(split bool) []placers.Option {
	d := append(dataParallelDecls(),
		placers.Option{Name: "enforce-order", Type: placers.Bool, Default: "true",
			Doc: "the schedule's order as priorities (section 6.1)"},
		placers.Option{Name: "rollback", Type: placers.Bool, Default: "true",
			Doc: "keep the start strategy (or, for OS-DPOS, the unsplit plan) when faster in the placer's own simulation (section 4)"},
		placers.Option{Name: "profile-rounds", Type: placers.Int, Default: strconv.Itoa(DefaultProfileRounds), Min: 0, Max: 100,
			Doc: "times each strategy is profiled in simulation and the communication model refitted (section 4); 0: uncontended model"},
		placers.Option{Name: "start", Type: placers.Enum, Default: StartDataParallel, Values: []string{StartDataParallel, StartModel},
			Doc: "the graph DPOS starts from: the data-parallel replicas or the model graph"})
	if split {
		d = append(d,
			placers.Option{Name: "dims", Type: placers.List, Default: "batch,channel", Values: []string{string(Batch), string(Channel)},
				Doc: "split dimensions tried for critical-path ops"},
			placers.Option{Name: "max-trials", Type: placers.Int, Default: strconv.Itoa(DefaultMaxTrials), Min: 0, Max: 1 << 30,
				Doc: "DPOS runs in the split search at most; 0: no bound"})
	}
	return d
}

// Register adds FastT's placers and the data-parallel baseline to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "fastt-dpos", Description: "FastT DPOS: upward-rank list scheduling from the data-parallel graph, critical path on its own device, order enforcement", New: NewDPOS,
			Options: dposDecls(false)},
		{Name: "fastt-os-dpos", Description: "FastT OS-DPOS: DPOS plus splitting critical-path ops along batch or channel while the estimated step time drops", New: NewOSDPOS,
			Options: dposDecls(true)},
		{Name: "data-parallel", Description: "data parallelism: a replica per accelerator, ring all-reduce in buckets overlapped with the backward pass", New: NewDataParallel,
			Options: dataParallelDecls()},
	} {
		if err := r.Add(e); err != nil {
			return err
		}
	}
	return nil
}
