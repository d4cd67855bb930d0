// Package baseline holds the reference placers: everything on one device,
// round robin, seeded random, and an expert placement read from a file.
// (HEFT/ETF, local search and the graph partitioners join it later.)
package baseline
