package baechi

import "placesim/placers/mip"

// FavouriteParents exposes the LP of m-SCT to the tests.
var FavouriteParents = favouriteParents

// ErrNoCBC is the error of a missing solver.
var ErrNoCBC = mip.ErrNoSolver
