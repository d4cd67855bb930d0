// Package placers defines the Placer strategy interface, the Request a
// placer receives (a graph, a cluster and the Estimates it may use, never
// the engine's true costs), and a Registry of named factories that refuses
// duplicates. Concrete algorithms live in sub-packages, one per family;
// placers/builtin lists them all, and placers/placertest checks any placer.
package placers
