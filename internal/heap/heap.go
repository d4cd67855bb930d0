// Package heap is the project's one binary heap: a min-heap of values of
// any type under a caller's order, stored by value in a slice (no
// interface boxing, no allocation per push once the slice has grown).
// Every placer, importer and router that needs a priority queue uses it;
// the engine's event queue and ready queue are hand-inlined copies of it
// (engine/event.go, engine/ready.go), pinned to it by the engine's tests.
package heap

// Heap is a binary min-heap of T under less: Pop returns an item no other
// item is less than. Items that are equal under less come out in an order
// that depends on the heap's shape; a caller that needs a deterministic
// order breaks ties in less (by an ID or a sequence number). The zero
// value is not usable: make one with New.
type Heap[T any] struct {
	items []T
	less  func(a, b *T) bool
	// x holds the item up and down place while they compare it: less
	// takes pointers, and a pointer to a local would make every Push and
	// Pop allocate it on the heap (less is a function value, which the
	// compiler cannot see through)
	x T
}

// New returns an empty heap ordered by less, which must be a strict weak
// order (irreflexive, transitive).
func New[T any](less func(a, b *T) bool) *Heap[T] { return &Heap[T]{less: less} }

// Len is the number of items.
func (h *Heap[T]) Len() int { return len(h.items) }

// Push adds x.
func (h *Heap[T]) Push(x T) {
	h.items = append(h.items, x)
	h.up(len(h.items)-1, x)
}

// Top returns the item Pop would return, without removing it; the heap
// must not be empty.
func (h *Heap[T]) Top() T { return h.items[0] }

// Pop removes and returns the least item; the heap must not be empty.
func (h *Heap[T]) Pop() T {
	top := h.items[0]
	n := len(h.items) - 1
	last := h.items[n]
	h.items = h.items[:n]
	if n > 0 {
		h.down(0, last)
	}
	return top
}

// Reset empties the heap and keeps its storage.
func (h *Heap[T]) Reset() { h.items = h.items[:0] }

// Init replaces the items by xs (the heap takes the slice) and orders them
// in O(len(xs)).
func (h *Heap[T]) Init(xs []T) {
	h.items = xs
	for i := len(xs)/2 - 1; i >= 0; i-- {
		h.down(i, xs[i])
	}
}

// up places x, whose slot is i, above its ancestors that are not less
// than it: the hole moves up, x is written once.
func (h *Heap[T]) up(i int, x T) {
	items := h.items
	h.x = x
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(&h.x, &items[p]) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = h.x
}

// down places x, whose slot is i, below its descendants that are less
// than it: the hole moves down to where x belongs, x is written once.
func (h *Heap[T]) down(i int, x T) {
	items := h.items
	n := len(items)
	h.x = x
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h.less(&items[r], &items[c]) {
			c = r
		}
		if !h.less(&items[c], &h.x) {
			break
		}
		items[i] = items[c]
		i = c
	}
	items[i] = h.x
}
