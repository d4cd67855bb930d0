// Package zoo builds the model zoo's graphs by name from a spec such as
// "bert?layers=3&batch=8&granularity=op&training=true": each model is
// generated from its layer shapes at layer or TensorFlow-like operator
// granularity, for a batch size, optionally as a training step.
package zoo
