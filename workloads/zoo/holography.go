package zoo

import (
	"fmt"
	"math"
)

// buildTensorHolography is the tensor holography network (Shi et al. 2021,
// "Towards real-time photorealistic 3D holography with deep neural
// networks", Nature 591: the CNN that maps an RGB-D image to a phase-only
// hologram's amplitude and phase; Celeritas section 6.2 describes it as 30
// convolutional layers of 24 filters): layers 3x3 convolutions with bias,
// the hidden ones with batch norm and ReLU, the last one to 6 channels
// (amplitude and phase of red, green, blue) with tanh. The training loss
// is the paper's: a data-fidelity term on the predicted hologram and a
// focal-stack term that propagates each colour's predicted complex field
// to planes depths with the angular spectrum method (FFT, product with the
// depth's transfer function, inverse FFT, amplitude) and compares it with
// the target focal stack (precomputed, an input). planes=16 is our setting
// (Celeritas does not state the focal stack's size; planes=0 drops the
// term). Layers: input, conv_<i>, loss/fidelity, loss/focal_stack/<colour>,
// loss.
func buildTensorHolography(p *Params) (*net, error) {
	res, err := p.Int("resolution", 384, 8, 8192)
	if err != nil {
		return nil, err
	}
	layers, err := p.Int("layers", 30, 2, 512)
	if err != nil {
		return nil, err
	}
	filters, err := p.Int("filters", 24, 1, 4096)
	if err != nil {
		return nil, err
	}
	planes, err := p.Int("planes", 16, 0, 256)
	if err != nil {
		return nil, err
	}
	b := p.Batch
	n := newNet("tensor_holography", p)
	n.in("input", "input")
	x := n.source("rgbd", "input", b, res, res, 4)
	target := n.source("target_hologram", "labels", b, res, res, 6)
	var stack tensor
	if planes > 0 {
		stack = n.source("target_focal_stack", "labels", b, res, res, 3*planes)
	}
	for l := 1; l <= layers; l++ {
		n.in(fmt.Sprintf("conv_%d", l), "conv-block")
		if l < layers {
			x = n.biasAdd("bias", n.conv2d("conv2d", x, filters, 3, 3, 1, same))
			x = n.relu("relu", n.batchNorm("batchnorm", x, true))
		} else {
			x = n.tanh("tanh", n.biasAdd("bias", n.conv2d("conv2d", x, 6, 3, 3, 1, same)))
		}
	}
	n.in("loss/fidelity", "loss")
	d := n.op("sub", "sub", float64(x.elems()), x.shape, nil, x, target)
	losses := []tensor{n.op("mean", "mean", float64(d.elems()), []int{1}, nil, n.elementwise("square", "square", flopArith, d))}

	plane := []int{b, res, res, 1}
	field := []int{b, res, res, 2} // complex as (real, imaginary)
	pts := float64(res) * float64(res)
	fftFLOPs := float64(b) * 5 * pts * math.Log2(pts) // per 2-D complex FFT
	for _, colour := range []string{"red", "green", "blue"} {
		if planes == 0 {
			break
		}
		n.in("loss/focal_stack/"+colour, "focal-stack")
		amp := n.op("amplitude", "slice", 0, plane, nil, x.sliceOf(plane...))
		ph := n.op("phase", "slice", 0, plane, nil, x.sliceOf(plane...))
		re := n.mul("real", amp, n.elementwise("cos", "cos", flopTranscendental, ph))
		im := n.mul("imag", amp, n.elementwise("sin", "sin", flopTranscendental, ph))
		u := n.op("complex", "complex", 0, field, nil, re, im)
		f := n.op("fft2d", "fft2d", fftFLOPs, field, nil, u)
		for z := 0; z < planes; z++ {
			pz := fmt.Sprintf("plane_%d/", z)
			h := n.source(pz+"transfer_function", "constant", res, res, 2)
			prop := n.op(pz+"mul", "mul", 3*float64(b)*2*pts, field, nil, f, h)
			prop = n.op(pz+"ifft2d", "ifft2d", fftFLOPs, field, nil, prop)
			a := n.op(pz+"abs", "complex-abs", 3*float64(b)*pts, plane, nil, prop)
			diff := n.op(pz+"sub", "sub", float64(b)*pts, plane, nil, a, stack.sliceOf(plane...))
			sq := n.elementwise(pz+"square", "square", flopArith, diff)
			losses = append(losses, n.op(pz+"mean", "mean", float64(sq.elems()), []int{1}, nil, sq))
		}
	}
	n.in("loss", "loss")
	if len(losses) > 1 {
		n.op("add_n", "add-n", float64(len(losses)-1), []int{1}, nil, losses...)
	}
	return n, nil
}
