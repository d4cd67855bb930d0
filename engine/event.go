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
// key is the sequence number shifted left by two with the kind in the low
// bits: it orders events like the sequence number, in 24 bytes.
type event struct {
	time float64
	key  uint64
	id   int32 // node or transfer index
	aux  int32 // hop index for transfer events
}

// kind is what the event does.
func (e *event) kind() eventKind { return eventKind(e.key & 3) }

// eventQueue is a min-heap on (time, sequence number), driven by
// container/heap: equal times fire in the order they were scheduled, which
// makes every run deterministic. Push and Pop pass events through the in
// and out fields rather than as interface values, which would allocate.
//
// next leaves the event it returns at the root (taken): the first event
// scheduled while it is processed replaces it with one heap.Fix instead of
// a Pop and a Push. Since no two events have the same key, the order in
// which events come out does not depend on the heap's shape.
type eventQueue struct {
	items   []event
	seq     uint64
	in, out event
	taken   bool // items[0] was returned by next and is to be removed
}

func (q *eventQueue) Len() int { return len(q.items) }
func (q *eventQueue) Less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.time != b.time {
		return a.time < b.time
	}
	return a.key < b.key
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

// pending is the number of events still to fire.
func (q *eventQueue) pending() int {
	if q.taken {
		return len(q.items) - 1
	}
	return len(q.items)
}

// schedule adds an event at time t.
func (q *eventQueue) schedule(t float64, k eventKind, id, aux int32) {
	q.seq++
	e := event{time: t, key: q.seq<<2 | uint64(k), id: id, aux: aux}
	if q.taken {
		q.items[0] = e
		q.taken = false
		heap.Fix(q, 0)
		return
	}
	q.in = e
	heap.Push(q, nil)
}

// next returns the earliest event; it stays in the heap, taken, until the
// next schedule replaces it or the next call to next removes it.
func (q *eventQueue) next() event {
	if q.taken {
		heap.Pop(q)
	}
	q.taken = true
	return q.items[0]
}
