package zoo

// buildInceptionV3 is Inception-V3 (Szegedy et al. 2016, "Rethinking the
// Inception Architecture for Computer Vision", Table 1 and Figures 5-7),
// laid out as TF-slim and Keras build it: every convolution is followed by
// batch norm with an offset only (no scale) and ReLU; modules Mixed_5b-5d
// (35x35), 6a (reduction), 6b-6e (17x17, factorised 7x7), 7a (reduction),
// 7b-7c (8x8, expanded 1x3/3x1 filter banks); global average pool,
// dropout, classifier. 23.8 M parameters without the auxiliary head
// (aux=true adds it, as the paper trains with it).
func buildInceptionV3(p *Params) (*net, error) {
	n, x, labels, classes, err := imageInput(p, "inception_v3", 299, 75, true)
	if err != nil {
		return nil, err
	}
	aux, err := p.Bool("aux", false)
	if err != nil {
		return nil, err
	}
	b := p.Batch

	// cb is a conv-bn-relu layer in its own block
	cb := func(block string, x tensor, f, kh, kw, s int, pd padding) tensor {
		n.in(block, "conv-block")
		return n.convBN("", x, f, kh, kw, s, pd, false, true)
	}
	pool := func(block, typ string, x tensor, k, s int, pd padding) tensor {
		n.in(block, typ)
		return n.pool(typ, typ, x, k, s, pd)
	}
	cat := func(block string, xs ...tensor) tensor {
		n.in(block, "concat")
		return n.concat("concat", xs...)
	}

	x = cb("stem/conv_1a", x, 32, 3, 3, 2, valid)
	x = cb("stem/conv_2a", x, 32, 3, 3, 1, valid)
	x = cb("stem/conv_2b", x, 64, 3, 3, 1, same)
	x = pool("stem/pool_3a", "max-pool", x, 3, 2, valid)
	x = cb("stem/conv_3b", x, 80, 1, 1, 1, valid)
	x = cb("stem/conv_4a", x, 192, 3, 3, 1, valid)
	x = pool("stem/pool_5a", "max-pool", x, 3, 2, valid)

	// 35 x 35: Mixed_5b, 5c, 5d (Figure 5)
	for i, poolF := range []int{32, 64, 64} {
		m := "mixed_5" + string(rune('b'+i))
		b0 := cb(m+"/branch_0/conv_1", x, 64, 1, 1, 1, same)
		b1 := cb(m+"/branch_1/conv_1", x, 48, 1, 1, 1, same)
		b1 = cb(m+"/branch_1/conv_2", b1, 64, 5, 5, 1, same)
		b2 := cb(m+"/branch_2/conv_1", x, 64, 1, 1, 1, same)
		b2 = cb(m+"/branch_2/conv_2", b2, 96, 3, 3, 1, same)
		b2 = cb(m+"/branch_2/conv_3", b2, 96, 3, 3, 1, same)
		b3 := pool(m+"/branch_3/pool", "avg-pool", x, 3, 1, same)
		b3 = cb(m+"/branch_3/conv_1", b3, poolF, 1, 1, 1, same)
		x = cat(m+"/concat", b0, b1, b2, b3)
	}
	// reduction to 17 x 17: Mixed_6a
	{
		m := "mixed_6a"
		b0 := cb(m+"/branch_0/conv_1", x, 384, 3, 3, 2, valid)
		b1 := cb(m+"/branch_1/conv_1", x, 64, 1, 1, 1, same)
		b1 = cb(m+"/branch_1/conv_2", b1, 96, 3, 3, 1, same)
		b1 = cb(m+"/branch_1/conv_3", b1, 96, 3, 3, 2, valid)
		b2 := pool(m+"/branch_2/pool", "max-pool", x, 3, 2, valid)
		x = cat(m+"/concat", b0, b1, b2)
	}
	// 17 x 17: Mixed_6b-6e, factorised 7x7 (Figure 6)
	var auxIn tensor
	for i, c := range []int{128, 160, 160, 192} {
		m := "mixed_6" + string(rune('b'+i))
		b0 := cb(m+"/branch_0/conv_1", x, 192, 1, 1, 1, same)
		b1 := cb(m+"/branch_1/conv_1", x, c, 1, 1, 1, same)
		b1 = cb(m+"/branch_1/conv_2", b1, c, 1, 7, 1, same)
		b1 = cb(m+"/branch_1/conv_3", b1, 192, 7, 1, 1, same)
		b2 := cb(m+"/branch_2/conv_1", x, c, 1, 1, 1, same)
		b2 = cb(m+"/branch_2/conv_2", b2, c, 7, 1, 1, same)
		b2 = cb(m+"/branch_2/conv_3", b2, c, 1, 7, 1, same)
		b2 = cb(m+"/branch_2/conv_4", b2, c, 7, 1, 1, same)
		b2 = cb(m+"/branch_2/conv_5", b2, 192, 1, 7, 1, same)
		b3 := pool(m+"/branch_3/pool", "avg-pool", x, 3, 1, same)
		b3 = cb(m+"/branch_3/conv_1", b3, 192, 1, 1, 1, same)
		x = cat(m+"/concat", b0, b1, b2, b3)
	}
	auxIn = x
	// reduction to 8 x 8: Mixed_7a
	{
		m := "mixed_7a"
		b0 := cb(m+"/branch_0/conv_1", x, 192, 1, 1, 1, same)
		b0 = cb(m+"/branch_0/conv_2", b0, 320, 3, 3, 2, valid)
		b1 := cb(m+"/branch_1/conv_1", x, 192, 1, 1, 1, same)
		b1 = cb(m+"/branch_1/conv_2", b1, 192, 1, 7, 1, same)
		b1 = cb(m+"/branch_1/conv_3", b1, 192, 7, 1, 1, same)
		b1 = cb(m+"/branch_1/conv_4", b1, 192, 3, 3, 2, valid)
		b2 := pool(m+"/branch_2/pool", "max-pool", x, 3, 2, valid)
		x = cat(m+"/concat", b0, b1, b2)
	}
	// 8 x 8: Mixed_7b, 7c, expanded filter banks (Figure 7)
	for i := 0; i < 2; i++ {
		m := "mixed_7" + string(rune('b'+i))
		b0 := cb(m+"/branch_0/conv_1", x, 320, 1, 1, 1, same)
		b1 := cb(m+"/branch_1/conv_1", x, 384, 1, 1, 1, same)
		b1a := cb(m+"/branch_1/conv_2a", b1, 384, 1, 3, 1, same)
		b1b := cb(m+"/branch_1/conv_2b", b1, 384, 3, 1, 1, same)
		b1 = cat(m+"/branch_1/concat", b1a, b1b)
		b2 := cb(m+"/branch_2/conv_1", x, 448, 1, 1, 1, same)
		b2 = cb(m+"/branch_2/conv_2", b2, 384, 3, 3, 1, same)
		b2a := cb(m+"/branch_2/conv_3a", b2, 384, 1, 3, 1, same)
		b2b := cb(m+"/branch_2/conv_3b", b2, 384, 3, 1, 1, same)
		b2 = cat(m+"/branch_2/concat", b2a, b2b)
		b3 := pool(m+"/branch_3/pool", "avg-pool", x, 3, 1, same)
		b3 = cb(m+"/branch_3/conv_1", b3, 192, 1, 1, 1, same)
		x = cat(m+"/concat", b0, b1, b2, b3)
	}
	var auxLoss tensor
	if aux {
		// auxiliary classifier on the 17x17 grid (Section 4 of the paper)
		a := pool("aux/pool", "avg-pool", auxIn, 5, 3, valid)
		a = cb("aux/conv_1", a, 128, 1, 1, 1, same)
		a = cb("aux/conv_2", a, 768, a.shape[1], a.shape[2], 1, valid)
		n.in("aux/fc", "dense")
		a = n.reshape("flatten", "reshape", a, b, a.dim())
		logits := n.dense("fc", a, classes, "")
		n.in("aux/loss", "loss")
		auxLoss = n.xentLoss("loss", logits, labels)
	}
	loss := classifier(n, x, labels, classes, true)
	if aux {
		totalLoss(n, loss, auxLoss)
	}
	return n, nil
}
