package fastt

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
)

func TestCostModel(t *testing.T) {
	g := handGraph(1 << 20)
	for _, preset := range []string{"8xV100-nvlink", "8xV100-nvlink-2node", "2xV100-nvlink+cpu"} {
		t.Run(preset, func(t *testing.T) {
			c, err := devices.NewPreset(preset)
			if err != nil {
				t.Fatal(err)
			}
			est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
			cm, err := NewCostModel(est)
			if err != nil {
				t.Fatal(err)
			}
			// routes are affine in the bytes: the regression is exact
			for a := range c.Devices {
				for b := range c.Devices {
					for _, n := range []int64{0, 1000, 3 << 20, 1 << 30} {
						if got, want := cm.Transfer(a, b, n), est.TransferTime(a, b, n); !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-6) {
							t.Fatalf("%d -> %d, %d bytes: model %g s, estimate %g s", a, b, n, got, want)
						}
					}
				}
			}
			// profiled transfers that waited twice as long raise the fitted
			// time of their pair only
			var ts []Transfer
			for _, n := range []int64{1 << 20, 8 << 20, 64 << 20} {
				ts = append(ts, Transfer{Src: 0, Dst: 1, Bytes: n, Seconds: 2 * est.TransferTime(0, 1, n)})
			}
			u, err := cm.Update(ts)
			if err != nil {
				t.Fatal(err)
			}
			n := int64(32 << 20)
			if !(u.Transfer(0, 1, n) > cm.Transfer(0, 1, n)*1.2) {
				t.Fatalf("after congestion: %g s, before %g s", u.Transfer(0, 1, n), cm.Transfer(0, 1, n))
			}
			if u.Transfer(1, 0, n) != cm.Transfer(1, 0, n) || cm.Transfer(0, 1, n) != est.TransferTime(0, 1, n) && !scalar.EqualWithinAbsOrRel(cm.Transfer(0, 1, n), est.TransferTime(0, 1, n), 1e-9, 1e-6) {
				t.Fatal("update changed another pair or the original model")
			}
		})
	}
}
