package fastt

import "placesim/placers"

// Register adds FastT's placers and the data-parallel baseline to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "fastt-dpos", Description: "FastT DPOS: upward-rank list scheduling from the data-parallel graph, critical path on its own device, order enforcement (opts enforce-order, start, rollback)", New: NewDPOS},
		{Name: "fastt-os-dpos", Description: "FastT OS-DPOS: DPOS plus splitting critical-path ops along batch or channel while the estimated step time drops (opts dims, max-trials, enforce-order, start, rollback)", New: NewOSDPOS},
		{Name: "data-parallel", Description: "data parallelism: a replica per accelerator, ring all-reduce in buckets overlapped with the backward pass (opts bucket, overlap)", New: NewDataParallel},
	} {
		if err := r.Register(e.Name, e.Description, e.New); err != nil {
			return err
		}
	}
	return nil
}
