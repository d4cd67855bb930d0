package engine

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

// eventQueue is a binary min-heap on (time, sequence number): equal
// times fire in the order they were scheduled, which makes every run
// deterministic.
//
// Hand-inlined copy of internal/heap.Heap[event] ordered by before (its
// up and down, with the comparisons written out rather than called
// through a function value), pinned to it by TestEventQueueIsTheHeap.
//
// The run loop takes events with next (sim.run holds a hand-inlined copy
// of it, pinned by the enginereference build, see handInlined) and leaves
// the event it processes at the root (taken): the first event scheduled
// while it is processed replaces it with one sift down instead of a pop
// and a push. Since no two events have the same key, the order in which
// events come out does not depend on the heap's shape.
type eventQueue struct {
	items []event
	seq   uint64
	taken bool // items[0] is being processed and is to be removed
}

// before orders events by time, then by sequence number.
func (a *event) before(b *event) bool {
	return a.time < b.time || (a.time == b.time && a.key < b.key)
}

// schedule adds an event at time t.
func (q *eventQueue) schedule(t float64, k eventKind, id, aux int32) {
	q.seq++
	e := event{time: t, key: q.seq<<2 | uint64(k), id: id, aux: aux}
	if q.taken {
		q.taken = false
		q.down(0, e)
		return
	}
	q.items = append(q.items, e)
	q.up(len(q.items)-1, e)
}

// up places e, whose slot is i, above its later ancestors.
func (q *eventQueue) up(i int, e event) {
	items := q.items
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&items[p]) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = e
}

// down places e, whose slot is i, below its earlier descendants. Its
// comparisons are before, written out (hand-inlined copies of before: the
// sift is the run's hottest loop).
func (q *eventQueue) down(i int, e event) {
	items := q.items
	n := uint(len(items))
	for {
		c := 2*uint(i) + 1
		if c >= n {
			break
		}
		ch := &items[c]
		if r := c + 1; r < n {
			if rh := &items[r]; rh.time < ch.time || (rh.time == ch.time && rh.key < ch.key) {
				c, ch = r, rh
			}
		}
		if !(ch.time < e.time || (ch.time == e.time && ch.key < e.key)) {
			break
		}
		items[i] = *ch
		i = int(c)
	}
	items[i] = e
}

// next removes the event processed last (the root, when taken) and
// returns the next one, which stays at the root, taken, while it is
// processed; ok is false when no event is left. sim.run holds a
// hand-inlined copy of it.
func (q *eventQueue) next() (e *event, ok bool) {
	if q.taken {
		n := len(q.items) - 1
		last := q.items[n]
		q.items = q.items[:n]
		if n > 0 {
			q.down(0, last)
		}
	}
	if len(q.items) == 0 {
		q.taken = false
		return nil, false
	}
	q.taken = true
	return &q.items[0], true
}
