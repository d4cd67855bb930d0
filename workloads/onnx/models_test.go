package onnx_test

// tinyCNN is a small image classifier: conv-bn-relu-maxpool, a strided
// conv, global average pooling, a fully connected layer and softmax, with
// a symbolic batch dimension.
func tinyCNN() []byte { return tinyCNNWith("batch") }

// tinyCNNWith is tinyCNN with the batch dimension given (a symbolic name
// or a size).
func tinyCNNWith(batch any) []byte {
	m := newModel("tiny_cnn").input("image", tFloat, batch, 3, 32, 32)
	m.weight("conv1.weight", 8, 3, 3, 3).weight("conv1.bias", 8)
	m.node("Conv", "/features/conv1/Conv", in("image", "conv1.weight", "conv1.bias"), in("c1"),
		aInts("kernel_shape", 3, 3), aInts("pads", 1, 1, 1, 1), aInts("strides", 1, 1))
	for _, p := range []string{"bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var"} {
		m.weight(p, 8)
	}
	m.node("BatchNormalization", "/features/bn1/BatchNormalization",
		in("c1", "bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var"), in("b1"), aFloat("epsilon", 1e-5))
	m.node("Relu", "/features/relu1/Relu", in("b1"), in("r1"))
	m.node("MaxPool", "/features/pool1/MaxPool", in("r1"), in("p1"), aInts("kernel_shape", 2, 2), aInts("strides", 2, 2))
	m.weight("conv2.weight", 16, 8, 3, 3)
	m.node("Conv", "/features/conv2/Conv", in("p1", "conv2.weight"), in("c2"), aInts("strides", 2, 2))
	m.node("Relu", "/features/relu2/Relu", in("c2"), in("r2"))
	m.node("GlobalAveragePool", "/pool/GlobalAveragePool", in("r2"), in("g"))
	m.node("Flatten", "/Flatten", in("g"), in("f"), aInt("axis", 1))
	m.weight("fc.weight", 10, 16).weight("fc.bias", 10)
	m.node("Gemm", "/fc/Gemm", in("f", "fc.weight", "fc.bias"), in("logits"), aInt("transB", 1))
	m.node("Softmax", "/Softmax", in("logits"), in("probs"), aInt("axis", 1))
	m.output("probs", tFloat, batch, 10)
	return m.bytes()
}

// Dimensions of tinyTransformer.
const (
	tfVocab  = 100
	tfDim    = 16
	tfHeads  = 2
	tfMaxPos = 64
	tfFF     = 4 * tfDim
)

// tinyTransformer is one pre-LN transformer block between a token
// embedding and a language-model head tied to it, exported the way
// PyTorch does: shapes for the head split are computed at run time from
// Shape/Gather/Unsqueeze/Concat (the importer folds them), positions come
// from Range over the sequence length, and the head reads the embedding
// through a Transpose (so the embedding has two readers).
func tinyTransformer() []byte { return tinyTransformerWith("batch", "seq") }

// tinyTransformerWith is tinyTransformer with the batch and sequence
// dimensions given (symbolic names or sizes).
func tinyTransformerWith(batch, seq any) []byte {
	m := newModel("tiny_transformer").input("ids", tInt64, batch, seq)
	m.weight("wte", tfVocab, tfDim).weight("wpe", tfMaxPos, tfDim)
	m.ints("zero", []int64{0}, []int64{}...).ints("one", []int64{1}, []int64{}...)
	m.ints("axis0", []int64{0}).ints("heads", []int64{tfHeads}).ints("headDim", []int64{tfDim / tfHeads})
	m.ints("merge", []int64{0, 0, tfDim})
	m.node("Gather", "/wte/Gather", in("wte", "ids"), in("tok"))
	m.node("Shape", "/Shape", in("ids"), in("idsShape"))
	m.node("Gather", "/Gather_b", in("idsShape", "zero"), in("B"))
	m.node("Gather", "/Gather_s", in("idsShape", "one"), in("S"))
	m.node("Range", "/Range", in("zero", "S", "one"), in("pos"))
	m.node("Gather", "/wpe/Gather", in("wpe", "pos"), in("posEmb"))
	m.node("Add", "/embed/Add", in("tok", "posEmb"), in("x"))
	m.weight("ln1.weight", tfDim).weight("ln1.bias", tfDim)
	m.node("LayerNormalization", "/h.0/ln_1/LayerNormalization", in("x", "ln1.weight", "ln1.bias"), in("ln1"), aInt("axis", -1))
	m.node("Unsqueeze", "/h.0/attn/Unsqueeze_b", in("B", "axis0"), in("B1"))
	m.node("Unsqueeze", "/h.0/attn/Unsqueeze_s", in("S", "axis0"), in("S1"))
	m.node("Concat", "/h.0/attn/Concat", in("B1", "S1", "heads", "headDim"), in("split"), aInt("axis", 0))
	for _, p := range []string{"q", "k", "v"} {
		m.weight("attn."+p+".weight", tfDim, tfDim)
		m.node("MatMul", "/h.0/attn/"+p+"/MatMul", in("ln1", "attn."+p+".weight"), in(p))
		m.node("Reshape", "/h.0/attn/"+p+"/Reshape", in(p, "split"), in(p+"4"))
	}
	m.node("Transpose", "/h.0/attn/q/Transpose", in("q4"), in("qt"), aInts("perm", 0, 2, 1, 3))
	m.node("Transpose", "/h.0/attn/k/Transpose", in("k4"), in("kt"), aInts("perm", 0, 2, 3, 1))
	m.node("Transpose", "/h.0/attn/v/Transpose", in("v4"), in("vt"), aInts("perm", 0, 2, 1, 3))
	m.node("MatMul", "/h.0/attn/scores/MatMul", in("qt", "kt"), in("scores"))
	m.node("Constant", "/h.0/attn/Constant", nil, in("scale"), aFloat("value_float", 2.828427))
	m.node("Div", "/h.0/attn/Div", in("scores", "scale"), in("scaled"))
	m.node("Softmax", "/h.0/attn/Softmax", in("scaled"), in("probs"), aInt("axis", -1))
	m.node("MatMul", "/h.0/attn/context/MatMul", in("probs", "vt"), in("ctx"))
	m.node("Transpose", "/h.0/attn/context/Transpose", in("ctx"), in("ctxT"), aInts("perm", 0, 2, 1, 3))
	m.node("Reshape", "/h.0/attn/context/Reshape", in("ctxT", "merge"), in("ctx3"))
	m.weight("attn.o.weight", tfDim, tfDim)
	m.node("MatMul", "/h.0/attn/o/MatMul", in("ctx3", "attn.o.weight"), in("o"))
	m.node("Add", "/h.0/Add", in("x", "o"), in("res1"))
	m.weight("ln2.weight", tfDim).weight("ln2.bias", tfDim)
	m.node("LayerNormalization", "/h.0/ln_2/LayerNormalization", in("res1", "ln2.weight", "ln2.bias"), in("ln2"))
	m.weight("mlp.fc.weight", tfDim, tfFF).weight("mlp.fc.bias", tfFF).weight("mlp.proj.weight", tfFF, tfDim)
	m.node("MatMul", "/h.0/mlp/fc/MatMul", in("ln2", "mlp.fc.weight"), in("ff1"))
	m.node("Add", "/h.0/mlp/fc/Add", in("ff1", "mlp.fc.bias"), in("ff1b"))
	m.node("Gelu", "/h.0/mlp/Gelu", in("ff1b"), in("act"))
	m.node("MatMul", "/h.0/mlp/proj/MatMul", in("act", "mlp.proj.weight"), in("ff2"))
	m.node("Add", "/h.0/Add_1", in("res1", "ff2"), in("h"))
	m.node("Transpose", "/lm_head/Transpose", in("wte"), in("wteT"), aInts("perm", 1, 0))
	m.node("MatMul", "/lm_head/MatMul", in("h", "wteT"), in("logits"))
	m.output("logits", tFloat, batch, seq, tfVocab)
	m.opset = 20 // Gelu is in opset 20
	return m.bytes()
}
