// Package engine is placesim's discrete-event simulator. Its event core is a
// time-ordered heap (container/heap, ties broken by a sequence number, so
// runs are deterministic). The executor plays a Plan on a devices.Cluster:
// one compute stream per device, every cross-device tensor a send/recv
// transfer whose route's directed links are FCFS queues, a memory ledger per
// device with peak and out-of-memory verdicts. It returns a Result with step
// time, utilisation, memory and, on request, a full trace. The engine never
// imports placers: placers that need feedback call Simulate themselves.
package engine
