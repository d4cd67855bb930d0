package engine_test

import (
	"fmt"
	"testing"

	"placesim/engine"
)

// TestPipelineActivationMemory: with A bytes of activation per micro-batch
// per stage and nothing else in memory, GPipe holds every micro-batch's
// activations on every stage (peak m·A, stage 0 included), 1F1B holds at
// most p-s micro-batches on stage s (peak min(p-s, m)·A).
func TestPipelineActivationMemory(t *testing.T) {
	const A = 1 << 20
	c := freeCluster(t, 8)
	for _, p := range []int{2, 4, 8} {
		for _, m := range []int{1, 4, 32} {
			u := uniformSpec{p: p, m: m, f: 1e-3, b: 2e-3, act: A}
			t.Run(fmt.Sprintf("p=%d/m=%d", p, m), func(t *testing.T) {
				gp := runPipeline(t, u, engine.GPipe, false, c)
				ofob := runPipeline(t, u, engine.OneFOneB, false, c)
				for s := 0; s < p; s++ {
					if got, want := gp.Pipeline.Stages[s].PeakMemory, int64(m)*A; got != want {
						t.Errorf("gpipe stage %d peak %d, want m·A = %d", s, got, want)
					}
					if got, want := ofob.Pipeline.Stages[s].PeakMemory, int64(min(p-s, m))*A; got != want {
						t.Errorf("1f1b stage %d peak %d, want min(p-s, m)·A = %d", s, got, want)
					}
				}
			})
		}
	}
}

// TestPipeDreamWeightStashing: PipeDream keeps p-s weight versions on stage
// s (one live, p-s-1 stashed) once it reaches its steady state (m >= 2p),
// so with parameters P and no activations the stage's peak memory is
// (p-s)·P; 1F1B (and GPipe) keep one version.
func TestPipeDreamWeightStashing(t *testing.T) {
	const P = 1 << 24
	c := freeCluster(t, 8)
	for _, p := range []int{2, 4, 8} {
		for _, m := range []int{2 * p, 32} {
			u := uniformSpec{p: p, m: m, f: 1e-3, b: 2e-3, params: P, update: 0.5e-3}
			t.Run(fmt.Sprintf("p=%d/m=%d", p, m), func(t *testing.T) {
				pd := runPipeline(t, u, engine.PipeDream, false, c)
				flush := runPipeline(t, u, engine.OneFOneB, false, c)
				for s := 0; s < p; s++ {
					st := pd.Pipeline.Stages[s]
					want := p - s
					if st.WeightVersions != want {
						t.Errorf("pipedream stage %d keeps %d weight versions, want p-s = %d", s, st.WeightVersions, want)
					}
					if st.PeakMemory != int64(want)*P {
						t.Errorf("pipedream stage %d peak %d, want (p-s)·P = %d", s, st.PeakMemory, int64(want)*P)
					}
					if fs := flush.Pipeline.Stages[s]; fs.WeightVersions != 1 || fs.PeakMemory != P {
						t.Errorf("1f1b stage %d keeps %d versions, peak %d; want 1 and P = %d", s, fs.WeightVersions, fs.PeakMemory, P)
					}
				}
				// PipeDream updates after every micro-batch: m updates per stage
				if want := flush.StepTime + float64(m-1)*u.update; pd.StepTime < want*(1-closedTol) {
					t.Errorf("pipedream step %g, want at least the flush's %g plus m-1 more updates = %g", pd.StepTime, flush.StepTime, want)
				}
			})
		}
	}
}

// TestRecomputation: GPipe re-materialisation keeps only the stage-boundary
// activations (m·boundary) plus one micro-batch's recomputed activations,
// and costs one more forward per micro-batch: exactly m·f more for uniform
// stages (the first recompute of each stage hides in its wait for the
// gradient), about m·f for 1F1B.
func TestRecomputation(t *testing.T) {
	const (
		act      = 1 << 20
		boundary = 1 << 16
	)
	c := freeCluster(t, 8)
	for _, sched := range []engine.Schedule{engine.GPipe, engine.OneFOneB, engine.PipeDream} {
		for _, p := range []int{2, 4, 8} {
			for _, m := range []int{4, 32} {
				u := uniformSpec{p: p, m: m, f: 1e-3, b: 2e-3, act: act, boundary: boundary}
				t.Run(fmt.Sprintf("%s/p=%d/m=%d", sched, p, m), func(t *testing.T) {
					plain := runPipeline(t, u, sched, false, c)
					rc := runPipeline(t, u, sched, true, c)
					extra := rc.StepTime - plain.StepTime
					if want := float64(m) * u.f; !closeTo(extra, want, closedTol) {
						t.Errorf("recomputation adds %g s, want one forward per micro-batch m·f = %g", extra, want)
					}
					for s := 0; s < p; s++ {
						a, b := plain.Pipeline.Stages[s].PeakMemory, rc.Pipeline.Stages[s].PeakMemory
						inFlight := int64(m)
						if sched != engine.GPipe {
							inFlight = int64(min(p-s, m))
						}
						// kept: the stage's input per in-flight micro-batch; live: one
						// recomputed activation, one being sent, gradient buffers
						bound := inFlight*boundary + 2*act + 4*boundary
						if b > bound || b > a || (inFlight > 1 && b == a) {
							t.Errorf("stage %d peak %d with recomputation, %d without; want <= %d, and lower with %d micro-batches in flight", s, b, a, bound, inFlight)
						}
					}
				})
			}
		}
	}
}
