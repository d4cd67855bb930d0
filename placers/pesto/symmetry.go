package pesto

// symmetric reports whether the accelerator targets of the problem are
// interchangeable: the same kind and memory, the same transfer times to,
// from and between each other and to every other device, and links
// shared by the same pairs of routes whatever the accelerators are called.
// Any placement can then be relabelled, and the ILP may break the
// symmetry.
func (p *problem) symmetric() bool {
	var acc []int
	for g, ts := range p.targets {
		if !p.c.GroupCPU[g] {
			acc = ts
			break
		}
	}
	if len(acc) < 2 {
		return false
	}
	cl := p.est.Cluster
	k0 := cl.Devices[acc[0]]
	for _, d := range acc[1:] {
		if cl.Devices[d].Kind.Name != k0.Kind.Name || cl.Devices[d].Memory != k0.Memory {
			return false
		}
	}
	sizes := []int64{0, 1 << 20, 1 << 30}
	same := func(a, b float64) bool { return a == b || (a-b)/(a+b) < 1e-12 && (b-a)/(a+b) < 1e-12 }
	// transfer times: every ordered pair of accelerators alike, every
	// accelerator alike to and from each other device
	for _, b := range sizes {
		ref := p.est.TransferTime(acc[0], acc[1], b)
		for _, x := range acc {
			for _, y := range acc {
				if x != y && !same(p.est.TransferTime(x, y, b), ref) {
					return false
				}
			}
			for d := 0; d < p.nDev; d++ {
				if contains(acc, d) {
					continue
				}
				if !same(p.est.TransferTime(x, d, b), p.est.TransferTime(acc[0], d, b)) ||
					!same(p.est.TransferTime(d, x, b), p.est.TransferTime(d, acc[0], b)) {
					return false
				}
			}
		}
	}
	// route conflicts invariant under every transposition of two
	// accelerators
	n := p.nDev
	perm := make([]int, n)
	for i, a := range acc {
		for _, b := range acc[i+1:] {
			for d := range perm {
				perm[d] = d
			}
			perm[a], perm[b] = b, a
			for s1 := 0; s1 < n; s1++ {
				for d1 := 0; d1 < n; d1++ {
					if s1 == d1 {
						continue
					}
					for s2 := 0; s2 < n; s2++ {
						for d2 := 0; d2 < n; d2++ {
							if s2 == d2 {
								continue
							}
							if p.conflict(s1, d1, s2, d2) != p.conflict(perm[s1], perm[d1], perm[s2], perm[d2]) {
								return false
							}
						}
					}
				}
			}
		}
	}
	return true
}

// relabel renames the accelerators of a placement in the order the
// accelerator groups (by group number) first use them, so that the j-th
// accelerator group uses one of the first j+1 accelerators: the form the
// ILP's symmetry breaking admits. It returns the new placement and orders.
func (p *problem) relabel(dev []int, orders [][]int) ([]int, [][]int) {
	var acc []int
	for g, ts := range p.targets {
		if !p.c.GroupCPU[g] {
			acc = ts
			break
		}
	}
	to := make([]int, p.nDev)
	for d := range to {
		to[d] = -1
	}
	next := 0
	groupDev := make([]int, p.c.NumGroups)
	for v, g := range p.c.Group {
		groupDev[g] = dev[v]
	}
	for g, d := range groupDev {
		if p.c.GroupCPU[g] || to[d] >= 0 {
			continue
		}
		to[d] = acc[next]
		next++
	}
	for d := range to {
		if to[d] < 0 {
			if contains(acc, d) {
				// an unused accelerator takes a free name
				for _, a := range acc {
					used := false
					for _, t := range to {
						if t == a {
							used = true
							break
						}
					}
					if !used {
						to[d] = a
						break
					}
				}
			} else {
				to[d] = d
			}
		}
	}
	nd := make([]int, len(dev))
	for v, d := range dev {
		nd[v] = to[d]
	}
	no := make([][]int, len(orders))
	for d, vs := range orders {
		no[to[d]] = vs
	}
	return nd, no
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
