package workloads

// Saved says which forward tensors an op's gradient reads, i.e. which
// activations a training step keeps alive until the backward pass.
type Saved uint8

// What a gradient reads besides the incoming gradient dY.
const (
	// SavedNone: nothing (add, bias-add, reshape, avg-pool, concat...).
	SavedNone Saved = iota
	// SavedInputs: the op's inputs (square, embedding ids, max-pool...).
	SavedInputs
	// SavedOutput: the op's output (relu, sigmoid, tanh, softmax, rsqrt).
	SavedOutput
	// SavedInputsOutput: both (the rule for unknown op types).
	SavedInputsOutput
	// SavedOthers: the gradient w.r.t. one input reads the other inputs
	// (matmul: dA = dY·Bᵀ reads B; mul: dA = dY·B; embedding: the table's
	// gradient reads the ids). With parameters of its own, the op's weight
	// gradient reads all data inputs (conv2d: dW = Xᵀ * dY).
	SavedOthers
)

// GradRule says how DeriveTraining differentiates ops of one Type.
type GradRule struct {
	// NoGradient marks ops that no gradient flows through (random
	// numbers, assignments to state, stop-gradient, index computations).
	NoGradient bool
	// PerInput makes one gradient op per input that needs a gradient, as
	// frameworks run separate kernels for them (matmul: dA and dB; conv2d:
	// Conv2DBackpropInput; concat: one slice per input).
	PerInput bool
	// WeightGrad makes the gradient of the op's own parameters a separate
	// op (Conv2DBackpropFilter, the second matmul); otherwise the one
	// gradient op also produces the parameters' gradient.
	WeightGrad bool
	// Saved is what the gradient reads.
	Saved Saved
	// FLOPs is the gradient's FLOPs per forward FLOP: for a PerInput rule,
	// per gradient op (matmul: 1 for dA, 1 for dB, so 2 in all).
	FLOPs float64
	// MultiOutput marks ops whose consumers read disjoint parts of the
	// output (split, unstack): their consumers' gradients are not summed
	// but gathered by the op's own gradient (a concat).
	MultiOutput bool
	// Variable marks a parameter-holding op whose output is its parameter
	// tensor, read by several ops (weights shared across time steps, tied
	// embeddings). Its gradient is the accumulation of its readers'
	// contributions, which they add in place into one buffer.
	Variable bool
}

// defaultGradRule is used for types the table does not know: the gradient
// reads the inputs and the output and costs twice the forward FLOPs.
var defaultGradRule = GradRule{Saved: SavedInputsOutput, FLOPs: 2}

// GradRuleFor returns the differentiation rule of an op type. Types not in
// the table get a conservative rule (one gradient op reading the inputs and
// the output, twice the forward FLOPs).
func GradRuleFor(typ string) GradRule {
	if r, ok := gradRules[typ]; ok {
		return r
	}
	return defaultGradRule
}

// gradRules is read-only after package initialisation (a composite literal;
// nothing writes to it).
var gradRules = map[string]GradRule{
	// sources and ops without a gradient
	"input":          {NoGradient: true},
	"labels":         {NoGradient: true},
	"constant":       {NoGradient: true},
	"random-uniform": {NoGradient: true},
	"floor":          {NoGradient: true},
	"stop-gradient":  {NoGradient: true},
	"assign-sub":     {NoGradient: true},
	"argmax":         {NoGradient: true},
	"variable":       {Variable: true},

	// dense linear algebra: separate kernels per input and for the weights
	"matmul":           {PerInput: true, WeightGrad: true, Saved: SavedOthers, FLOPs: 1},
	"batch-matmul":     {PerInput: true, Saved: SavedOthers, FLOPs: 1},
	"conv2d":           {PerInput: true, WeightGrad: true, Saved: SavedOthers, FLOPs: 1},
	"depthwise-conv2d": {PerInput: true, WeightGrad: true, Saved: SavedOthers, FLOPs: 1},
	"embedding":        {Saved: SavedOthers, FLOPs: 1},

	// elementwise arithmetic
	"bias-add":           {Saved: SavedNone, FLOPs: 1},
	"add":                {Saved: SavedNone, FLOPs: 1},
	"sub":                {Saved: SavedNone, FLOPs: 1},
	"add-n":              {Saved: SavedNone, FLOPs: 1},
	"mul":                {PerInput: true, WeightGrad: true, Saved: SavedOthers, FLOPs: 1},
	"div":                {PerInput: true, Saved: SavedInputs, FLOPs: 2},
	"squared-difference": {PerInput: true, Saved: SavedInputs, FLOPs: 2},
	"square":             {Saved: SavedInputs, FLOPs: 2},
	"abs":                {Saved: SavedInputs, FLOPs: 1},
	"neg":                {Saved: SavedNone, FLOPs: 1},
	"cos":                {Saved: SavedInputs, FLOPs: 1},
	"sin":                {Saved: SavedInputs, FLOPs: 1},

	// activations and normalisation pieces
	"relu":                 {Saved: SavedOutput, FLOPs: 1},
	"relu6":                {Saved: SavedOutput, FLOPs: 1},
	"sigmoid":              {Saved: SavedOutput, FLOPs: 1},
	"tanh":                 {Saved: SavedOutput, FLOPs: 1},
	"gelu":                 {Saved: SavedInputs, FLOPs: 2},
	"rsqrt":                {Saved: SavedOutput, FLOPs: 1},
	"softmax":              {Saved: SavedOutput, FLOPs: 1},
	"batchnorm":            {Saved: SavedInputs, FLOPs: 2},
	"layernorm":            {Saved: SavedInputs, FLOPs: 2},
	"dropout":              {Saved: SavedOutput, FLOPs: 0.5},
	"mean":                 {Saved: SavedNone, FLOPs: 1},
	"sum":                  {Saved: SavedNone, FLOPs: 1},
	"softmax-xent":         {Saved: SavedOutput, FLOPs: 1},
	"sparse-softmax-xent":  {Saved: SavedOutput, FLOPs: 1},
	"log-softmax":          {Saved: SavedOutput, FLOPs: 1},
	"nll-loss":             {Saved: SavedNone, FLOPs: 1},
	"cast-fp32":            {Saved: SavedNone, FLOPs: 1},
	"cast-fp16":            {Saved: SavedNone, FLOPs: 1},
	"complex-abs":          {Saved: SavedInputsOutput, FLOPs: 2},
	"max-pool":             {Saved: SavedInputsOutput, FLOPs: 1},
	"avg-pool":             {Saved: SavedNone, FLOPs: 1},
	"global-avg-pool":      {Saved: SavedNone, FLOPs: 1},
	"fft2d":                {Saved: SavedNone, FLOPs: 1},
	"ifft2d":               {Saved: SavedNone, FLOPs: 1},
	"complex":              {Saved: SavedNone, FLOPs: 1},
	"pad":                  {Saved: SavedNone, FLOPs: 1},
	"slice":                {Saved: SavedNone, FLOPs: 1},
	"gather":               {Saved: SavedOthers, FLOPs: 1},
	"reshape":              {Saved: SavedNone, FLOPs: 1},
	"transpose":            {Saved: SavedNone, FLOPs: 1},
	"squeeze":              {Saved: SavedNone, FLOPs: 1},
	"concat":               {PerInput: true, Saved: SavedNone, FLOPs: 1},
	"split":                {MultiOutput: true, Saved: SavedNone, FLOPs: 1},
	"identity":             {Saved: SavedNone, FLOPs: 1},
	"accumulate-gradients": {Saved: SavedNone, FLOPs: 1},
}
