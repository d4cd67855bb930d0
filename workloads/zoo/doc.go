// Package zoo builds the model zoo's graphs by name from a spec such as
// "bert?layers=3&batch=8&granularity=op&training=true": each model is
// generated from its layer shapes at layer or TensorFlow-like operator
// granularity, for a batch size, optionally as a training step (derived by
// workloads.DeriveTrainingWith with the model's optimizer).
//
// # Costs
//
// Tensors are fp32 (4 bytes an element), as in the papers' training runs.
// FLOPs count one multiply-add as 2 FLOPs: a convolution is
// 2·B·Ho·Wo·Cout·kh·kw·Cin, a matmul [M,K]x[K,N] is 2·M·K·N. Elementwise
// arithmetic (add, sub, mul, div, ReLU, bias-add) is 1 FLOP per output
// element; transcendental functions (tanh, sigmoid, rsqrt, cos, sin) 4;
// GELU 8; softmax 5; reductions 1 per input element; k x k pooling k² per output
// element; a 2-D FFT of N points 5·N·log2 N per sample. BytesAccessed is
// every input read, parameter read and output written (reads + writes);
// OutputBytes is the output tensor; ParamBytes the op's own parameters.
// Reshapes and transposes are modelled as copies.
//
// # Granularities
//
// granularity=op (the default) emits the compute ops TensorFlow 1.x emits
// for each layer: conv2d, bias-add, relu, matmul, split, concat, reshape,
// batch norm as tf.nn.moments + tf.nn.batch_normalization ops with the
// moving-average assignments (bn=fused makes it one op), layer norm as
// mean/sub/square/mean/add/rsqrt/mul/mul/add, dropout as random_uniform,
// add, floor, div, mul, an LSTM cell as BasicLSTMCell's 14 ops. Constants,
// variable reads, shape computations and other bookkeeping nodes are left
// out. Recurrent layers are unrolled over time steps (seq=); weights shared
// across steps or tied between layers are "variable" ops. Multi-head
// attention is one op chain per head (attention=fused: TensorFlow's batched
// heads with reshape/transpose).
//
// granularity=layer merges the ops of each layer (one LSTM cell per time
// step, one attention or FFN sublayer, one conv+bn+relu) into one op with
// their summed FLOPs, bytes and parameters; its output buffer holds what
// leaves the layer and, in a training step, the activations its backward
// pass reads.
//
// # Layer names
//
// Op.Layer is a slash-separated path that placers (the expert placements of
// the papers) can rely on; op names are the Layer (or, for an unrolled
// step, "<layer>/t_<step>") followed by the op's own name. Components:
//
//   - encoder/..., decoder/...: the side of a sequence-to-sequence model
//   - embedding: an embedding lookup (encoder/embedding, decoder/embedding)
//   - lstm_<i>: LSTM layer i from the bottom (0-based); the bi-directional
//     bottom layer of GNMT is lstm_0_fw and lstm_0_bw
//   - attention: the GNMT attention network (decoder/attention)
//   - softmax: the output projection and loss (decoder/softmax, softmax)
//   - layer_<i>/self_attention, layer_<i>/encdec_attention, layer_<i>/ffn:
//     Transformer, BERT and GPT sublayers (head h's ops are named head_<h>/)
//   - stem/..., stage_<s>/block_<b>/conv_<x>, mixed_<m>/branch_<k>/conv_<j>:
//     CNN stems, ResNet stages and blocks, Inception modules and branches
//   - cell_<i>, reduction_cell_<i>, cell_stem_<i> with base,
//     branch_<k>/{left,right,combine} and output: NASNet cells and the
//     branches (combinations) of each cell
//   - conv_<i>: the i-th layer of a plain stack (tensor_holography)
//   - classifier/..., aux/..., loss: heads and losses
//   - input: the data, labels and constants
package zoo
