package reports

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot/vg"

	"placesim/devices"
	"placesim/internal/units"
	"placesim/workloads"

	"placesim/runresult"
)

// ganttResolution is how many distinguishable time slots a lane has: runs
// of ops closer than span/ganttResolution are drawn as one rectangle, which
// keeps the SVG of a 100k-op run small without changing what the eye sees.
const ganttResolution = 4000

// lane is one row of a Gantt chart: a device's compute stream or a link.
type lane struct {
	name  string
	spans []hbar
}

// runGraph is the graph the run's plan was simulated on (a placer may
// return a rewritten graph).
func runGraph(o *runresult.Record) *workloads.Graph {
	if o.Plan != nil && o.Plan.Graph != nil {
		return o.Plan.Graph
	}
	return o.Graph
}

// checkTraced says why o cannot be charted as a timeline, or nil.
func checkTraced(o *runresult.Record) error {
	switch {
	case o == nil:
		return fmt.Errorf("no run to chart")
	case o.Result == nil || o.Plan == nil:
		return fmt.Errorf("run %s was not simulated (%s)", o.Placer, o.Error)
	case o.Result.Trace == nil:
		return fmt.Errorf("run %s has no trace: simulate it with a trace (study.Retrace or Spec.Trace)", o.Placer)
	}
	return nil
}

// linkName names directed link id of c's topology, e.g. "gpu0→sw0".
func linkName(c *devices.Cluster, id int) string {
	t := c.Topology
	if id < 0 || id >= len(t.Links) {
		return fmt.Sprintf("link%d", id)
	}
	l := t.Links[id]
	return t.Endpoints[l.From].Name + "→" + t.Endpoints[l.To].Name
}

// usedLinks lists the IDs of the links the run's transfers crossed, sorted.
func usedLinks(o *runresult.Record) []int {
	seen := map[int]bool{}
	for _, tr := range o.Result.Trace.Transfers {
		for _, h := range tr.Hops {
			seen[h.Link] = true
		}
	}
	ids := make([]int, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

// Gantt charts one traced run: a lane per device with its ops, coloured by
// op class (type and role, independent of the placer), and a lane per link
// that carried data with its transfers' hops. o must carry a trace (see
// study.Retrace); c is the cluster it ran on.
func Gantt(o *runresult.Record, c *devices.Cluster) (*Figure, error) {
	if err := checkTraced(o); err != nil {
		return nil, fmt.Errorf("gantt chart: %w", err)
	}
	g, res := runGraph(o), o.Result
	if len(res.OpStart) != len(g.Ops) || len(o.Plan.Device) != len(g.Ops) {
		return nil, fmt.Errorf("gantt chart of %s: %d op times and %d devices for %d ops", o.Placer, len(res.OpStart), len(o.Plan.Device), len(g.Ops))
	}
	scale, unit := timeScale(res.StepTime)
	eps := res.StepTime * scale / ganttResolution
	classes := newOpClasses(g)

	var lanes []lane
	for d := range c.Devices {
		lanes = append(lanes, lane{name: c.Devices[d].Name})
	}
	for _, sp := range opSpans(o) {
		lanes[sp.device].spans = append(lanes[sp.device].spans, hbar{From: sp.start * scale, To: sp.end * scale, Fill: classes.colour(&g.Ops[sp.op])})
	}
	linkLane := map[int]int{}
	for _, id := range usedLinks(o) {
		linkLane[id] = len(lanes)
		lanes = append(lanes, lane{name: linkName(c, id)})
	}
	for _, tr := range res.Trace.Transfers {
		for _, h := range tr.Hops {
			l := linkLane[h.Link]
			lanes[l].spans = append(lanes[l].spans, hbar{From: h.Start * scale, To: h.End * scale, Fill: colourTransfer})
		}
	}

	p := newPlot(fmt.Sprintf("%s on %s, %s: step time %s", o.Placer, o.Workload, o.Cluster, units.Seconds(res.StepTime)))
	names := make([]string, len(lanes))
	var bars []hbar
	for i, ln := range lanes {
		y := float64(len(lanes) - 1 - i)
		names[len(lanes)-1-i] = ln.name
		for _, s := range coalesce(ln.spans, eps) {
			s.Y, s.Thick = y, 0.72
			bars = append(bars, s)
		}
	}
	p.NominalY(names...)
	p.Add(newHBars(bars))
	p.Y.Min, p.Y.Max = -0.6, float64(len(lanes))-0.4
	p.X.Min, p.X.Max = 0, math.Max(res.StepTime*scale, 1e-12)
	p.X.Label.Text = fmt.Sprintf("time (%s)", unit)

	leg := newLegend()
	for _, t := range classes.names {
		leg.Add(t, swatch{fill: classes.hue(t)})
	}
	if classes.hasOther(g) {
		leg.Add("other types", swatch{fill: colourOther})
	}
	grey := color.RGBA{0x80, 0x80, 0x80, 0xff}
	leg.Add("forward", swatch{fill: roleShade(grey, workloads.Forward)})
	leg.Add("backward (light)", swatch{fill: roleShade(grey, workloads.Backward)})
	leg.Add("update (dark)", swatch{fill: roleShade(grey, workloads.Update)})
	leg.Add("transfer hop", swatch{fill: colourTransfer})
	rowsIn := 0.3 * float64(len(lanes))
	h := math.Max(1.4+rowsIn, 1.4+0.19*float64(len(classes.names)+5))
	return plotFigure("gantt", fmt.Sprintf("Gantt chart of the %s run (devices and links as lanes)", o.Placer),
		12*vg.Inch, vg.Length(math.Min(h, 20))*vg.Inch, p, leg), nil
}

// coalesce sorts a lane's spans by start and merges neighbours of the same
// colour closer than eps, and runs of spans each shorter than eps (drawn
// in the colour of the run's first span): the chart looks the same at its
// resolution with far fewer shapes.
func coalesce(spans []hbar, eps float64) []hbar {
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].From < spans[j].From })
	var out []hbar
	for _, s := range spans {
		if n := len(out); n > 0 {
			last := &out[n-1]
			near := s.From-last.To <= eps
			tiny := s.To-s.From < eps && last.To-last.From < eps
			if near && (last.Fill == s.Fill || tiny) {
				last.To = math.Max(last.To, s.To)
				continue
			}
		}
		out = append(out, s)
	}
	return out
}
