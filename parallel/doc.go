// Package parallel owns the parallel layout of a large-model training job:
// the tensor-, pipeline- (with virtual stages), context-, expert- and
// data-parallel sizes, sequence parallelism, optimizer sharding (ZeRO-1/2/3,
// FSDP), activation recomputation, micro- and global batch and precision,
// as one value (Layout) parsed once from a one-line form and validated
// with errors that name the field and its valid range. It is a leaf
// package: it imports only the standard library.
package parallel
