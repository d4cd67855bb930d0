package engine

// addStash models PipeDream's weight stashing on stage st (Narayanan et
// al., SOSP'19, §3.3): a forward pins the weight version current when it
// starts, its backward releases it, and an update makes a new version; an
// old version still pinned by an in-flight micro-batch stays in memory
// (a stash of the stage's parameter bytes) until its last backward ends.
// Under 1F1B stage s of p has up to p-s versions at once.
//
// The device's order is fixed by the schedule, so the stashes are worked
// out here, ahead of the run: each is a side node on the stage's device
// whose output (the stash) is allocated when the backward before the
// update that supersedes the version ends, and freed when the backward
// that drops the version's last pin ends.
func (u *unrolled) addStash(st int) {
	l := u.l
	bwd, upd := u.bwdOps[st], u.updOps[st]
	if len(bwd) == 0 || len(upd) == 0 {
		return // no backward or no update: one version throughout
	}
	var params int64
	for _, v := range l.stages[st] {
		params += u.g.Ops[v].ParamBytes
	}
	lastB := bwd[len(bwd)-1]
	type stash struct{ allocAfter, freeAfter int } // micro-batches of the two backwards
	var stashes []stash
	open := map[int]int{} // version -> index in stashes
	pins := make([]int, u.m+1)
	ver := make([]int, u.m)
	cur, alive, most := 0, 1, 1
	prevB := -1
	for _, it := range stageItems(l.sched, st, len(l.stages), u.m, l.recompute) {
		mb := int(it.mb)
		switch it.kind {
		case itemForward:
			ver[mb] = cur
			pins[cur]++
		case itemBackward:
			v := ver[mb]
			pins[v]--
			if pins[v] == 0 && v != cur {
				alive--
				stashes[open[v]].freeAfter = mb
			}
			prevB = mb
		case itemUpdate:
			if pins[cur] > 0 {
				open[cur] = len(stashes)
				stashes = append(stashes, stash{allocAfter: prevB})
				alive++
				most = max(most, alive)
			}
			cur++
		}
	}
	u.versions[st] = most
	if params == 0 {
		return
	}
	for r := 0; r < u.played; r++ {
		d := l.dev(r, l.stageDev[st])
		for _, sh := range stashes {
			x := u.addSide(NodeStash, d, params, sh.allocAfter, r)
			u.edge(u.node(lastB, sh.allocAfter, r), x, 0)
			u.edge(x, u.node(lastB, sh.freeAfter, r), 0)
		}
	}
}
