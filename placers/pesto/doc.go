// Package pesto implements Pesto (Hafeez, Sun, Gandhi and Liu, Middleware
// 2021): joint placement and scheduling of a DNN's operations as a 0-1
// integer linear program solved by COIN-OR CBC (placers/mip), after the
// graph has been coarsened to about 200 vertices by batches of cycle-free
// merges (section 3.3, Theorem 3.5); and the paper's Expert placements
// (section 5.2) as the placer pesto-expert.
//
// The ILP (section 3.2.2) has a start and completion time per vertex,
// placement variables per colocation group (one 0-1 variable for two
// devices, one-hot for more: the k-GPU extension), big-M non-overlap
// constraints per device (eq. 10), communication vertices whose processing
// time exists only when producer and consumer are apart (the XOR
// variables, eq. 5-6), congestion constraints that keep transfers on one
// link apart in first-come-first-served order, and memory constraints
// (the balanced form of the paper, or hard limits). Its solution gives the
// placement and a per-device order, which the plan carries as Plan.Order
// so that the engine plays Pesto's schedule.
//
// Within the time limit CBC rarely improves on its start, so the placer
// plays its plan with its estimates beside its starts (m-ETF, Expert, one
// GPU), the plan of a layer search (whole layers moved and swapped
// between the GPUs, list-scheduled by upward rank) and that of a range
// search (runs of a layer's ops, such as an unrolled layer's time steps,
// moved between the GPUs from the layer search's fastest plans), keeps the
// fastest and refines it by placement-group moves, then by an order search
// that moves producers of cross-device transfers in their device's order
// (guard.go, layers.go, ranges.go, search.go, order.go).
package pesto
