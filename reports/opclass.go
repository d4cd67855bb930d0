package reports

import (
	"image/color"
	"sort"

	"placesim/workloads"
)

// maxClasses is how many op types get their own colour; the rest share
// "other".
const maxClasses = 9

// opClasses colours ops by their placer-independent class: the op's Type
// picks the hue (the graph's most common types, by op count, ties by
// name, each get one; the rest are "other") and its Role the shade
// (forward full, backward light, update dark). The same graph gives the
// same colours whatever the placer.
type opClasses struct {
	names []string // coloured types, in legend order
	index map[string]int
}

func newOpClasses(g *workloads.Graph) *opClasses {
	count := map[string]int{}
	for i := range g.Ops {
		count[typeName(&g.Ops[i])]++
	}
	names := make([]string, 0, len(count))
	for t := range count {
		names = append(names, t)
	}
	sort.Slice(names, func(i, j int) bool {
		if count[names[i]] != count[names[j]] {
			return count[names[i]] > count[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > maxClasses {
		names = names[:maxClasses]
		sort.Strings(names)
	}
	m := &opClasses{names: names, index: map[string]int{}}
	for i, n := range names {
		m.index[n] = i
	}
	return m
}

func typeName(op *workloads.Op) string {
	if op.Type == "" {
		return "(untyped)"
	}
	return op.Type
}

// hue is the base colour of a type.
func (m *opClasses) hue(typ string) color.RGBA {
	if i, ok := m.index[typ]; ok {
		return tableau10[i]
	}
	return colourOther
}

// colour is op's colour: its type's hue in its role's shade.
func (m *opClasses) colour(op *workloads.Op) color.RGBA {
	return roleShade(m.hue(typeName(op)), op.Role)
}

// hasOther reports whether some type shares the "other" colour.
func (m *opClasses) hasOther(g *workloads.Graph) bool {
	for i := range g.Ops {
		if _, ok := m.index[typeName(&g.Ops[i])]; !ok {
			return true
		}
	}
	return false
}

func roleShade(c color.RGBA, r workloads.Role) color.RGBA {
	switch r {
	case workloads.Backward:
		return mix(c, white, 0.45)
	case workloads.Update:
		return mix(c, black, 0.35)
	}
	return c
}
