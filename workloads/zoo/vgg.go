package zoo

import "fmt"

// buildVGG19 is VGG-19 (Simonyan and Zisserman 2015, "Very Deep
// Convolutional Networks for Large-Scale Image Recognition", Table 1,
// configuration E): sixteen 3x3 convolutions with bias and ReLU in five
// blocks each ending in a 2x2 max pool, then fully connected layers of
// 4096, 4096 (with dropout in training) and the classes. 143.7 M
// parameters at 224x224.
func buildVGG19(p *Params) (*net, error) {
	n, x, labels, classes, err := imageInput(p, "vgg19", 224, 32, false)
	if err != nil {
		return nil, err
	}
	b := p.Batch
	for blk, cfg := range []struct{ convs, filters int }{{2, 64}, {2, 128}, {4, 256}, {4, 512}, {4, 512}} {
		for c := 0; c < cfg.convs; c++ {
			n.in(fmt.Sprintf("block_%d/conv_%d", blk+1, c+1), "conv-block")
			x = n.conv2d("conv2d", x, cfg.filters, 3, 3, 1, same)
			x = n.relu("relu", n.biasAdd("bias", x))
		}
		n.in(fmt.Sprintf("block_%d/pool", blk+1), "max-pool")
		x = n.maxPool("max_pool", x, 2, 2, valid)
	}
	n.in("classifier/flatten", "reshape")
	x = n.reshape("flatten", "reshape", x, b, x.shape[1]*x.shape[2]*x.shape[3])
	for i, units := range []int{4096, 4096} {
		n.in(fmt.Sprintf("classifier/fc_%d", i+6), "dense")
		x = n.dropout("dropout", n.dense("fc", x, units, "relu"), nil)
	}
	n.in("classifier/fc_8", "dense")
	logits := n.dense("fc", x, classes, "")
	n.in("classifier/loss", "loss")
	n.xentLoss("loss", logits, labels)
	return n, nil
}
