package devices

import (
	"fmt"
	"math/bits"

	"placesim/internal/units"
	"placesim/workloads"
)

// MaxDevices bounds the devices of one cluster (workloads.MaxDevices):
// a cluster file, a preset's count or a workload's hint beyond it is
// refused where it enters, before any per-device allocation.
const MaxDevices = workloads.MaxDevices

// PairBytes is what the cluster keeps today for every ordered pair of
// devices, once estimates and routes are made: the estimates'
// commFactor (a float64, devices/estimates.go), the route table's
// links.Route slice header (24 bytes, devices/routes.go) and its links
// (a LinkID of 4 bytes for each of up to 4 hops in the presets). Whoever
// makes these tables smaller (hierarchical routes) lowers this figure.
const PairBytes = 8 + 24 + 4*4

// PairTableBytes is the memory the per-device-pair tables of n devices
// take (n*n*PairBytes), and false if that overflows an int64.
func PairTableBytes(n int) (int64, bool) {
	if n < 0 {
		return 0, false
	}
	hi, sq := bits.Mul64(uint64(n), uint64(n))
	hi2, b := bits.Mul64(sq, PairBytes)
	if hi != 0 || hi2 != 0 || b > 1<<63-1 {
		return 0, false
	}
	return int64(b), true
}

// CheckDevices refuses a device count of the cluster named name outside
// 1..MaxDevices; field names where the count came from (a file's field,
// a flag) for the message.
func CheckDevices(name, field string, n int) error {
	if n < 1 || n > MaxDevices {
		return fmt.Errorf("cluster %q: %s = %d devices (valid range: 1 to %d)", name, field, n, MaxDevices)
	}
	return nil
}

// CheckPairTables refuses, before they are made, the per-device-pair
// tables of c (PairTableBytes) when they take more than limit bytes (the
// simulation's memory limit, --max-memory): they grow with the square of
// the devices, so a cluster within MaxDevices may still need more memory
// than the machine has.
func CheckPairTables(c *Cluster, limit int64) error {
	n := len(c.Devices)
	need, ok := PairTableBytes(n)
	size := units.Bytes(need)
	if !ok {
		size = "more than 8 EiB"
	}
	if !ok || need > limit {
		return fmt.Errorf("cluster %q: %d devices need %s of per-device-pair tables (routes, transfer factors: %d x %d x %d bytes), above the memory limit of %s (raise --max-memory or use fewer devices)",
			c.Name, n, size, n, n, PairBytes, units.Bytes(limit))
	}
	return nil
}
