// Package onnx imports an ONNX model (a serialized ModelProto) as a
// placesim forward graph, or a training step with Options.Training. The
// protobuf is decoded with google.golang.org/protobuf/encoding/protowire
// (no generated code) for the fields of onnx.proto the importer needs.
//
// # Graph
//
// Each graph input that is not an initializer becomes an op of type
// "input"; each node becomes an op named after the node (or OPTYPE_INDEX
// when unnamed; a name taken twice gets a "#2" suffix), in the layer given
// by its name's path ("/encoder/layer.0/attention/MatMul" is in layer
// "encoder/layer.0/attention"). An edge joins the producer and the consumer
// of each tensor and carries its size in bytes (two tensors between the
// same pair of ops make one edge carrying both). An op's Type is the
// lower-case ONNX op type, except for the names the zoo uses: conv1d,
// conv2d, conv3d (and conv2d-transpose...), matmul (MatMul and Gemm),
// batchnorm, layernorm, instancenorm, max-pool, avg-pool, global-avg-pool,
// global-max-pool, embedding (a Gather from a parameter) and bias-add (an
// Add of an activation and a parameter).
//
// Parameters are the floating-point initializers. One that a single op
// reads adds to that op's ParamBytes; one that several ops read (a tied
// embedding) becomes an op of type "variable" holding the ParamBytes, with
// an edge to each reader. Integer initializers, Constant nodes and nodes
// whose outputs are known at import time (Shape, Size, and arithmetic,
// Gather, Concat, Slice, Squeeze, Unsqueeze, Cast, Reshape... on known
// integer tensors) are constants: they are folded away and no op is made
// for them; the ops that read them count their bytes as memory traffic.
//
// # Shapes
//
// Shapes are inferred node by node (ONNX nodes are topologically sorted)
// from the initializers' dims and the graph inputs' shapes. A symbolic
// dimension (dim_param) of an input takes its value from Options.Dims
// (from a path as model.onnx?batch_size=32&sequence=128); one without a
// value is an error. Where an output's shape depends on run-time data
// (a Reshape, Expand or Range whose inputs cannot be folded, a Resize with
// scales), it is taken from the graph's value_info or outputs, and is an
// error naming the node when those do not give it. The graph's batch size
// is the leading dimension of the first graph input (1 if there is none).
//
// Supported op types (default domain): Conv, ConvTranspose, Gemm, MatMul,
// the element-wise ops (Add, Sub, Mul, Div, Pow, Max, Min, Sum, Mean,
// PRelu, Mod, Where, the comparisons and logical ops, Relu, LeakyRelu, Elu,
// Selu, Gelu, Sigmoid, HardSigmoid, HardSwish, Tanh, Erf, Softplus, Exp,
// Log, Sqrt, Reciprocal, Neg, Abs, Floor, Ceil, Round, Sign, Not, Sin, Cos,
// Clip, Cast, Identity, Dropout), BatchNormalization, LayerNormalization,
// InstanceNormalization, MaxPool, AveragePool, GlobalAveragePool,
// GlobalMaxPool, Softmax, LogSoftmax, the Reduce ops, ArgMax, ArgMin,
// Flatten, Reshape, Transpose, Squeeze, Unsqueeze, Concat, Split, Slice,
// Gather, Expand, Tile, Pad, Resize, Range, ConstantOfShape, Shape, Size,
// Constant, LSTM, GRU, RNN (SupportedOps lists them). Any other op type,
// or an op in another domain, is an error naming the op type, the node and
// the supported ops; with Options.Lenient (model.onnx?lenient=true, or
// placesim stats --lenient) such a node becomes a zero-cost op of type
// "unsupported" and the graph carries one warning per unsupported type, so
// that the rest of the model can be seen.
//
// # Recurrent ops
//
// LSTM, GRU and RNN follow the ONNX operator specification: every
// direction (forward, reverse, bidirectional), layout 0 ([seq, batch,
// ...]) and 1 (batch first), the optional B, sequence_lens, initial_h,
// initial_c and P inputs, the activations, hidden_size,
// linear_before_reset and input_forget attributes. Parameters are W, R, B
// and P as stored (ONNX's B holds both biases, as PyTorch's bias_ih and
// bias_hh: 4*h*(in+h) + 8*h per LSTM direction). Options.RNN (the query
// option rnn=unroll|fused) chooses the graph:
//
//   - unroll (the default): one op per time step and direction, of type
//     lstm-cell, gru-cell or rnn-cell, named NODE/t_T (NODE/forward/t_T
//     and NODE/reverse/t_T with two directions), all in layer NODE, so
//     that a placer can split a sequence as in the zoo's unrolled RNNs.
//     Each direction's W, R, B and P are one variable op read by its
//     steps; a step reads its time slice of X and the previous state and
//     holds its gates as workspace (TempBytes). A stacked recurrent node
//     reads the steps of the one below directly (also through Squeeze,
//     Transpose or Reshape nodes that keep the time axis); a consumer of
//     Y, Y_h or Y_c as a whole reads it from a zero-FLOP concat op. At most
//     32,768 steps per node and 262,144 per model unroll.
//   - fused: one op per node, of type lstm, gru or rnn.
//
// Work per batch row, time step and direction: 2*gates*h*(in+h) for the
// two matrix products, 2*gates*h with B, then LSTM 3 f + 1 g + 1 h
// activations of h elements + 4*h (+ 6*h with peepholes), GRU 2 f + 1 g
// + 5*h, RNN 1 f, where Sigmoid and Tanh count 4 FLOPs an element. A row
// whose sequence_lens entry is known runs that many steps; unknown lengths
// count the full sequence.
//
// # Costs
//
// Sizes use the element type of each tensor (fp32 is 4 bytes, fp16 2,
// int64 8...). FLOPs count one multiply-add as 2 FLOPs, as the zoo does:
// MatMul and Gemm 2*M*K*N per matrix product (+ M*N for Gemm's C); Conv
// 2 * N * M * output pixels * C/group * kernel size (+ one per output for
// the bias); ConvTranspose 2 * N * C * input pixels * M/group * kernel
// size; pooling output elements * kernel size; global pooling and
// reductions one per input element; Softmax 5, LayerNormalization and
// InstanceNormalization 8, BatchNormalization 2 per element; element-wise
// ops 1 per output element per extra input (Where 1), activations 1 (Relu) to 8
// (Gelu) per element; data movement (Transpose, Concat, Gather, Slice...)
// 0. BytesAccessed is the bytes of all inputs (parameters included) and
// outputs, except for views (Reshape, Flatten, Squeeze, Unsqueeze,
// Identity: 0) and Gather (indices + twice the rows gathered).
package onnx
