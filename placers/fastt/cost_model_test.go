package fastt

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
)

// fitTol is the relative tolerance of a least-squares fit against its
// closed form.
const fitTol = 1e-9

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
						if got, want := cm.Transfer(a, b, n), est.TransferTime(a, b, n); !scalar.EqualWithinAbsOrRel(got, want, fitTol, fitTol) {
							t.Fatalf("%d -> %d, %d bytes: model %g s, estimate %g s", a, b, n, got, want)
						}
					}
				}
			}
			// profiled transfers that waited twice as long are added to the
			// pair's samples: the refit is the least-squares line through the
			// old samples and the new ones (normal equations, solved here by
			// hand), and no other pair changes
			var ts []Transfer
			xs := append([]float64(nil), cm.xs[1]...) // pair 0 -> 1
			ys := append([]float64(nil), cm.ys[1]...)
			for _, n := range []int64{1 << 20, 8 << 20, 64 << 20} {
				sec := 2 * est.TransferTime(0, 1, n)
				ts = append(ts, Transfer{Src: 0, Dst: 1, Bytes: n, Seconds: sec})
				xs, ys = append(xs, float64(n)), append(ys, sec)
			}
			u, err := cm.Update(ts)
			if err != nil {
				t.Fatal(err)
			}
			var sx, sy, sxx, sxy float64
			for i := range xs {
				sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
			}
			m := float64(len(xs))
			beta := (m*sxy - sx*sy) / (m*sxx - sx*sx)
			alpha := (sy - beta*sx) / m
			for _, n := range []int64{0, 32 << 20, 1 << 30} {
				want := math.Max(alpha, 0) + math.Max(beta, 0)*float64(n)
				if got := u.Transfer(0, 1, n); !scalar.EqualWithinAbsOrRel(got, want, fitTol, fitTol) {
					t.Fatalf("after congestion, %d bytes: %g s, least squares over %d samples %g s", n, got, len(xs), want)
				}
				if u.Transfer(0, 1, n) <= cm.Transfer(0, 1, n) && n > 0 {
					t.Fatalf("after congestion, %d bytes: %g s, not above %g s before", n, u.Transfer(0, 1, n), cm.Transfer(0, 1, n))
				}
				if u.Transfer(1, 0, n) != cm.Transfer(1, 0, n) {
					t.Fatalf("update changed pair 1 -> 0: %g s, was %g s", u.Transfer(1, 0, n), cm.Transfer(1, 0, n))
				}
				if !scalar.EqualWithinAbsOrRel(cm.Transfer(0, 1, n), est.TransferTime(0, 1, n), fitTol, fitTol) {
					t.Fatal("update changed the original model")
				}
			}
		})
	}
}
