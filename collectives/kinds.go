package collectives

import (
	"fmt"
	"strings"
)

// Kind is a collective operation.
type Kind int

// The collectives. Sizes follow nccl-tests: the bytes of a call are the
// all-reduce buffer, the all-gather output (every rank's piece), the
// reduce-scatter input, the all-to-all buffer of one rank (it sends
// (n-1)/n of it), the broadcast buffer, the send/recv message.
const (
	AllReduce Kind = iota
	AllGather
	ReduceScatter
	AllToAll
	Broadcast
	SendRecv
)

var kindNames = [...]string{"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "broadcast", "send-recv"}

// String is the kind's name as the CLI spells it ("all-reduce").
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("collective(%d)", int(k))
}

// Kinds lists every collective.
func Kinds() []Kind {
	return []Kind{AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, SendRecv}
}

// ParseKind reads a collective's name: "all-reduce", "allreduce" and
// "all_reduce" (nccl-tests' spelling) are the same.
func ParseKind(s string) (Kind, error) {
	norm := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(s))
	for _, k := range Kinds() {
		if strings.ReplaceAll(k.String(), "-", "") == norm {
			return k, nil
		}
	}
	if norm == "alltoallv" || norm == "a2a" {
		return AllToAll, nil
	}
	if norm == "sendrecv" || norm == "p2p" {
		return SendRecv, nil
	}
	return 0, fmt.Errorf("collective %q (valid: %s)", s, strings.Join(kindNames[:], ", "))
}

// BusFactor is nccl-tests' factor from algorithm bandwidth to bus
// bandwidth for n ranks (nccl-tests doc/PERFORMANCE.md and
// src/*.cu GetBw): 2(n-1)/n for all-reduce, (n-1)/n for all-gather,
// reduce-scatter and all-to-all, 1 for broadcast and send/recv.
func (k Kind) BusFactor(n int) float64 {
	if n < 1 {
		return 0
	}
	f := float64(n-1) / float64(n)
	switch k {
	case AllReduce:
		return 2 * f
	case AllGather, ReduceScatter, AllToAll:
		return f
	}
	return 1
}
