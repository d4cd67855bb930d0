package engine

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"

	"placesim/internal/heap"
)

// TestEventQueueIsTheHeap pins eventQueue, a hand-inlined copy of
// heap.Heap[event] ordered by before, to the original: random schedules
// interleaved with next, as the run loop does them (the event taken stays
// at the root until the next schedule or next), give the same events in
// the same order as the generic heap.
func TestEventQueueIsTheHeap(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(24, 4))
	for round := 0; round < 100; round++ {
		var q eventQueue
		ref := heap.New((*event).before)
		var seq uint64
		for step := 0; step < 500; step++ {
			if rng.IntN(5) < 2 {
				// the handler of the event taken schedules a few
				for k := rng.IntN(3); k > 0; k-- {
					tm := float64(rng.IntN(20))
					kind := eventKind(rng.IntN(4))
					id, aux := int32(rng.IntN(1000)), int32(rng.IntN(4))
					q.schedule(tm, kind, id, aux)
					seq++
					ref.Push(event{time: tm, key: seq<<2 | uint64(kind), id: id, aux: aux})
				}
				continue
			}
			got, ok := q.next()
			if ok != (ref.Len() > 0) {
				t.Fatalf("round %d step %d: next() ok = %v with %d events in the generic heap", round, step, ok, ref.Len())
			}
			if !ok {
				continue
			}
			if want := ref.Pop(); *got != want {
				t.Fatalf("round %d step %d: next() = %+v, generic heap %+v", round, step, *got, want)
			}
		}
	}
}

// TestReadyHeapIsTheHeap pins readyHeap, a hand-inlined copy of
// heap.Heap[readyItem] (highest prio first, then first ready), to the
// original.
func TestReadyHeapIsTheHeap(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(24, 5))
	for round := 0; round < 100; round++ {
		var h readyHeap
		ref := heap.New(func(a, b *readyItem) bool {
			if a.prio != b.prio {
				return a.prio > b.prio
			}
			return a.seq < b.seq
		})
		var seq uint64
		for step := 0; step < 500; step++ {
			if h.len() != ref.Len() {
				t.Fatalf("round %d step %d: len() = %d, generic heap %d", round, step, h.len(), ref.Len())
			}
			if h.len() > 0 && rng.IntN(5) < 2 {
				if got, want := h.pop(), ref.Pop(); got != want {
					t.Fatalf("round %d step %d: pop() = %+v, generic heap %+v", round, step, got, want)
				}
				continue
			}
			x := readyItem{prio: -float64(rng.IntN(6)), seq: seq, op: int32(rng.IntN(100))}
			seq++
			h.push(x)
			ref.Push(x)
		}
	}
}

// TestHandInlinedCopiesMatchOriginals pins the hand-inlined copies of the
// run loop (eventQueue.next in run, tryStart in opEnd and deliver, route's
// fast path in wire; see inline.go) to their originals: it runs every
// engine test (golden results, pipelines, data parallelism, reuse,
// closed forms) in the enginereference build, which plays the originals,
// against the same golden files and closed forms. Skipped with -short, in that build itself, and where no go
// command is on PATH.
func TestHandInlinedCopiesMatchOriginals(t *testing.T) {
	if !handInlined {
		t.Skip("this is the enginereference build")
	}
	if testing.Short() {
		t.Skip("builds the engine's tests again (-short)")
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	cmd := exec.Command(gocmd, "test", "-count=1", "-tags", "enginereference", ".")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the engine's tests with the originals of the hand-inlined copies (go test -tags enginereference ./engine): %v\n%s", err, out)
	}
}
