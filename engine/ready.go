package engine

// readyItem is a ready op with its plan priority and arrival sequence.
type readyItem struct {
	prio float64
	seq  uint64
	op   int32
}

// readyHeap pops the highest priority first, then the earliest ready.
type readyHeap struct{ items []readyItem }

func (h *readyHeap) len() int { return len(h.items) }

func (h *readyHeap) less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	return a.seq < b.seq
}

func (h *readyHeap) push(x readyItem) {
	h.items = append(h.items, x)
	for i := len(h.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *readyHeap) pop() readyItem {
	top := h.items[0]
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
	return top
}

// readyQueue holds a stream's ready nodes: a heap on (prio, first ready),
// or, when every node of the stream has the same prio (no plan priorities,
// no order), a plain first-in first-out queue of nodes, which pops in the
// same order without the heap's work.
type readyQueue struct {
	fifo  bool
	heap  readyHeap
	nodes []int32 // fifo mode: the queue, from head on
	head  int
}

func (q *readyQueue) len() int {
	if q.fifo {
		return len(q.nodes) - q.head
	}
	return q.heap.len()
}

func (q *readyQueue) push(x readyItem) {
	if q.fifo {
		q.nodes = append(q.nodes, x.op)
		return
	}
	q.heap.push(x)
}

// top is the node pop would return.
func (q *readyQueue) top() int32 {
	if q.fifo {
		return q.nodes[q.head]
	}
	return q.heap.items[0].op
}

func (q *readyQueue) pop() int32 {
	if !q.fifo {
		return q.heap.pop().op
	}
	x := q.nodes[q.head]
	q.head = advance(&q.nodes, q.head)
	return x
}

// advance moves a queue's head past its first item, and moves what is
// left to the front of the slice once the head has passed half of it, so
// that a queue that never empties does not grow without end.
func advance[T any](items *[]T, head int) int {
	head++
	switch n := len(*items); {
	case head == n:
		*items, head = (*items)[:0], 0
	case head >= 64 && 2*head >= n:
		m := copy(*items, (*items)[head:])
		*items, head = (*items)[:m], 0
	}
	return head
}
