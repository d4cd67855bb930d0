package engine

import "container/heap"

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evOpEnd   eventKind = iota // an op finishes on its device
	evHopEnd                   // a transfer finishes a hop (link freed)
	evHopHead                  // a cut-through transfer's head reaches the next link
	evSideEnd                  // a side node (collective step, stash) finishes off the stream
)

// event is a scheduled happening, stored by value in the heap: no pointers,
// so heap moves cost no GC write barriers and scheduling allocates nothing.
type event struct {
	time float64
	seq  uint64
	id   int32 // op or transfer index
	aux  int32 // hop index for transfer events
	kind eventKind
}

// eventQueue is a min-heap on (time, seq), driven by container/heap: equal
// times fire in the order they were scheduled, which makes every run
// deterministic. Push and Pop pass events through the in and out fields
// rather than as interface values, which would allocate.
type eventQueue struct {
	items   []event
	seq     uint64
	in, out event
}

func (q *eventQueue) Len() int { return len(q.items) }
func (q *eventQueue) Less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.time != b.time {
		return a.time < b.time
	}
	return a.seq < b.seq
}
func (q *eventQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }

// Push implements heap.Interface: it appends q.in (the argument is unused).
func (q *eventQueue) Push(any) { q.items = append(q.items, q.in) }

// Pop implements heap.Interface: it moves the last item to q.out.
func (q *eventQueue) Pop() any {
	n := len(q.items) - 1
	q.out = q.items[n]
	q.items = q.items[:n]
	return nil
}

// schedule adds an event at time t.
func (q *eventQueue) schedule(t float64, k eventKind, id, aux int32) {
	q.seq++
	q.in = event{time: t, seq: q.seq, id: id, aux: aux, kind: k}
	heap.Push(q, nil)
}

// next removes and returns the earliest event.
func (q *eventQueue) next() event {
	heap.Pop(q)
	return q.out
}
