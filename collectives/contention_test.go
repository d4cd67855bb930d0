package collectives

import (
	"fmt"
	"math"
	"testing"
)

// TestSMShare: one SM per channel out of S; no share without an SM count
// or channels; never more than the whole GPU.
func TestSMShare(t *testing.T) {
	for _, tc := range []struct {
		ch, S int
		want  float64
	}{{24, 108, 24.0 / 108}, {12, 80, 0.15}, {0, 108, 0}, {24, 0, 0}, {200, 108, 1}} {
		if got := SMShare(tc.ch, tc.S); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("SMShare(%d, %d) = %g, want %g", tc.ch, tc.S, got, tc.want)
		}
	}
	if got := Stolen(2e-3, 0.25); math.Abs(got-0.5e-3) > 1e-15 {
		t.Errorf("Stolen(2 ms, 0.25) = %g, want 0.5 ms", got)
	}
	if got := Stolen(2e-3, 3); math.Abs(got-2e-3) > 1e-15 {
		t.Errorf("Stolen(2 ms, 3) = %g, want the whole 2 ms (a share is at most 1)", got)
	}
}

// TestRingHBMPerByte plays NCCL's runRing step by step (src/device/
// all_reduce.h) on one GPU and counts the device-memory bytes each
// primitive moves for a chunk of 1 byte (a received chunk is written by
// the peer into this GPU's memory), against the bytes received.
func TestRingHBMPerByte(t *testing.T) {
	// local traffic of each primitive: what it reads and writes here,
	// plus the peer's write of what it receives
	traffic := map[string]float64{
		"directSend":                     1,     // read input
		"directRecvReduceDirectSend":     1 + 2, // received; read it and the input
		"directRecvReduceCopyDirectSend": 1 + 3, // received; read it and the input, write output
		"directRecvCopyDirectSend":       1 + 1, // received into the output; read to forward
		"directRecv":                     1,     // received into the output
	}
	receives := map[string]bool{"directSend": false}
	for _, n := range []int{2, 3, 4, 8, 16} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var steps []string
			steps = append(steps, "directSend")
			for j := 2; j < n; j++ {
				steps = append(steps, "directRecvReduceDirectSend")
			}
			steps = append(steps, "directRecvReduceCopyDirectSend")
			for j := 1; j < n-1; j++ {
				steps = append(steps, "directRecvCopyDirectSend")
			}
			steps = append(steps, "directRecv")
			var bytes, recv float64
			for _, s := range steps {
				bytes += traffic[s]
				if r, ok := receives[s]; !ok || r {
					recv++
				}
			}
			if recv != float64(2*(n-1)) {
				t.Fatalf("%d chunks received, want 2(n-1) = %d", int(recv), 2*(n-1))
			}
			if got, want := RingHBMPerByte(n), bytes/recv; math.Abs(got-want) > 1e-12 {
				t.Errorf("RingHBMPerByte(%d) = %g, want %g (%g bytes per %g received)", n, got, want, bytes, recv)
			}
		})
	}
	if RingHBMPerByte(1) != 0 {
		t.Errorf("one GPU moves nothing")
	}
}

// TestKernelChannels: a ring or tree launches twice the channels the
// search found (ncclTopoPostset), at most MAXCHANNELS; NVLS its own.
func TestKernelChannels(t *testing.T) {
	for _, tc := range []struct {
		e    Estimate
		want int
	}{
		{Estimate{Algorithm: "ring", Channels: 12}, 24},
		{Estimate{Algorithm: "tree", Channels: 6}, 12},
		{Estimate{Algorithm: "ring", Channels: 40}, 64},
		{Estimate{Algorithm: "nvls", Channels: 16}, 16},
		{Estimate{Algorithm: "none"}, 0},
	} {
		if got := KernelChannels(tc.e); got != tc.want {
			t.Errorf("KernelChannels(%s, %d) = %d, want %d", tc.e.Algorithm, tc.e.Channels, got, tc.want)
		}
	}
}
