package zoo

import "fmt"

// buildResNet is ResNet v1.5 (He et al. 2016, "Deep Residual Learning for
// Image Recognition", Table 1, bottleneck blocks; v1.5 strides in the 3x3
// convolution as torchvision and the NVIDIA reference do): a 7x7/2 stem
// and max pool, four stages of bottleneck blocks (1x1, 3x3, 1x1 with batch
// norm, projection shortcut in each stage's first block), global average
// pool and a fully connected classifier. ResNet-50 has 25.6 M parameters
// and about 4.1 G multiply-adds per 224x224 image.
func buildResNet(p *Params) (*net, error) {
	depth, err := p.Int("depth", 50, 50, 152)
	if err != nil {
		return nil, err
	}
	stages := map[int][]int{50: {3, 4, 6, 3}, 101: {3, 4, 23, 3}, 152: {3, 8, 36, 3}}[depth]
	if stages == nil {
		return nil, fmt.Errorf("parameter depth=%d (valid: 50, 101, 152)", depth)
	}
	n, x, labels, classes, err := imageInput(p, fmt.Sprintf("resnet%d", depth), 224, 32, true)
	if err != nil {
		return nil, err
	}

	n.in("stem/conv_1", "conv-block")
	x = n.convBN("", x, 64, 7, 7, 2, same, true, true)
	n.in("stem/pool", "max-pool")
	x = n.maxPool("max_pool", x, 3, 2, same)
	for s, blocks := range stages {
		width := 64 << s
		for k := 0; k < blocks; k++ {
			stride := 1
			if k == 0 && s > 0 {
				stride = 2
			}
			pre := fmt.Sprintf("stage_%d/block_%d", s+2, k+1)
			shortcut := x
			if k == 0 {
				n.in(pre+"/shortcut", "conv-block")
				shortcut = n.convBN("", x, 4*width, 1, 1, stride, same, true, false)
			}
			n.in(pre+"/conv_a", "conv-block")
			y := n.convBN("", x, width, 1, 1, 1, same, true, true)
			n.in(pre+"/conv_b", "conv-block")
			y = n.convBN("", y, width, 3, 3, stride, same, true, true)
			n.in(pre+"/conv_c", "conv-block")
			y = n.convBN("", y, 4*width, 1, 1, 1, same, true, false)
			n.in(pre+"/add", "add-relu")
			x = n.addRelu("add", y, shortcut)
		}
	}
	classifier(n, x, labels, classes, false)
	return n, nil
}

// classifier is the ImageNet head: global average pool, [dropout,] fully
// connected layer, softmax cross-entropy loss (returned). Audit (issue
// 29): the head runs once per image on the pooled features, never per
// pixel, as in the reference trainers (torchvision resnet.py forward:
// avgpool, flatten, fc; TF-slim resnet_v1 and inception_v3 likewise).
func classifier(n *net, x, labels tensor, classes int, dropout bool) tensor {
	n.in("classifier/pool", "global-avg-pool")
	x = n.globalAvgPool("global_avg_pool", x)
	n.in("classifier/fc", "dense")
	if dropout {
		x = n.dropout("dropout", x, nil)
	}
	logits := n.dense("fc", x, classes, "")
	n.in("classifier/loss", "loss")
	return n.xentLoss("loss", logits, labels)
}

// totalLoss adds an auxiliary head's loss to the main one (TF-slim's
// total loss), so that the training step has one loss.
func totalLoss(n *net, main, aux tensor) {
	n.in("loss", "loss")
	n.add("total_loss", main, aux)
}
