package mip

import "errors"

// ErrNoSolver is returned when the cbc binary cannot be found.
var ErrNoSolver = errors.New("the MIP solver cbc was not found on PATH: install coinor-cbc (apt-get install coinor-cbc)")

// ErrInfeasible is returned when the solver proves the model infeasible.
var ErrInfeasible = errors.New("MIP is infeasible")

// ErrNoIncumbent is returned when the solver stopped (time limit,
// cancellation) before it found any feasible solution.
var ErrNoIncumbent = errors.New("MIP solver stopped without a feasible solution")

// ErrModel is wrapped by errors about a malformed model (bad bounds, NaN
// coefficients, unknown variables).
var ErrModel = errors.New("bad MIP model")
