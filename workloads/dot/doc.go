// Package dot writes a workload graph in Graphviz's DOT language, for
// looking at small graphs (dot -Tsvg): one box per op labelled with its
// name, type, FLOPs and output size, coloured by role (forward, backward,
// update), grouped in a cluster per layer; one arrow per edge labelled
// with the bytes it carries.
package dot
