package llm

import (
	"bufio"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/links"
)

// TestInterleavedGolden: the order of forward and backward chunks, as
// Order gives it and as Simulate runs it on each rank's compute stream,
// equals Megatron-LM's interleaved schedule on a small case, written out
// by hand in testdata.
func TestInterleavedGolden(t *testing.T) {
	f, err := os.Open("testdata/interleaved_p2_v2_m4.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		k, v, _ := strings.Cut(line, ": ")
		want[k] = v
	}
	j := job(t, "zoo:llama3.1-8b?layers=8", "pp=2,vp=2,mbs=1,gbs=4", "dgx-h100")
	r, err := Simulate(j)
	if err != nil {
		t.Fatal(err)
	}
	for rank := 0; rank < 2; rank++ {
		o, err := Order("1f1b", 2, 2, 4, rank)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, task := range o {
			got = append(got, task.String())
		}
		name := "rank" + string(rune('0'+rank))
		if g := strings.Join(got, " "); g != want[name] {
			t.Errorf("%s order:\n got %s\nwant %s", name, g, want[name])
		}
		spans := append([]Span(nil), r.Ranks[rank].Spans...)
		sort.SliceStable(spans, func(a, b int) bool { return spans[a].Start < spans[b].Start })
		var ran []string
		for _, s := range spans {
			ran = append(ran, s.Task.String())
		}
		if g := strings.Join(ran, " "); g != want[name] {
			t.Errorf("%s simulated:\n got %s\nwant %s", name, g, want[name])
		}
	}
}

// Plain 1F1B: pp-rank-1 warm-up forwards (PipeDream-Flush).
func TestOrder1F1B(t *testing.T) {
	o, _ := Order("1f1b", 4, 1, 6, 1)
	var got []string
	for _, task := range o {
		got = append(got, task.String())
	}
	want := "F0.0 F1.0 F2.0 B0.0 F3.0 B1.0 F4.0 B2.0 F5.0 B3.0 B4.0 B5.0"
	if g := strings.Join(got, " "); g != want {
		t.Fatalf("got %s want %s", g, want)
	}
}

// bubbleTol is the tolerance of the bubble against the closed form: the
// embedding and the loss of a vocabulary of 8 on the end stages make the
// simulated pipeline slightly non-uniform, and a transfer costs NCCL's
// latency even on links that take no time.
const bubbleTol = 0.01

// TestInterleavedBubble: on a uniform pipeline the bubble of interleaved
// 1F1B is (p-1)/(v·m) of the ideal time (Narayanan et al. SC'21, section
// 2.2.2), and (p-1)/m for plain 1F1B.
func TestInterleavedBubble(t *testing.T) {
	for _, c := range []struct {
		p, v, m int
	}{{4, 1, 8}, {4, 2, 8}, {4, 4, 8}, {8, 3, 16}} {
		// chunks of 4 layers at 8,192 tokens (tens of ms) next to which
		// NCCL's point-to-point latency (microseconds, a time the closed
		// form does not count) is below 0.1 %
		layers := c.p * c.v * 4
		j := job(t, "zoo:llama3.1-8b?vocab=8&seq=8192&layers="+itoa(layers),
			"pp="+itoa(c.p)+",vp="+itoa(c.v)+",mbs=1,gbs="+itoa(c.m), "dgx-h100")
		j.Cluster = instantCluster(t, c.p)
		r, err := Simulate(j)
		if err != nil {
			t.Fatal(err)
		}
		// the first rank ends the pipeline (its last backward is the
		// last of all); ideal is its work without a bubble
		ideal, end := r.Ranks[0].Busy, 0.0
		for _, rr := range r.Ranks {
			end = math.Max(end, rr.PipelineEnd)
		}
		if end != r.Ranks[0].PipelineEnd {
			t.Fatalf("rank 0 ends at %g, the pipeline at %g", r.Ranks[0].PipelineEnd, end)
		}
		bubble := (end - ideal) / ideal
		want := float64(c.p-1) / float64(c.v*c.m)
		t.Logf("p=%d v=%d m=%d: bubble %.5f of ideal, (p-1)/(vm) = %.5f", c.p, c.v, c.m, bubble, want)
		if math.Abs(bubble/want-1) > bubbleTol {
			t.Errorf("p=%d v=%d m=%d: bubble %.5f of ideal, want (p-1)/(vm) = %.5f within %.0f %%", c.p, c.v, c.m, bubble, want, 100*bubbleTol)
		}
	}
}

// instantCluster is n H100s on a switch whose links take no time: the
// closed form of the bubble counts no transfer.
func instantCluster(t *testing.T, n int) *devices.Cluster {
	top := links.NewTopology()
	sw := top.MustEndpoint("switch", links.NVSwitch)
	var devs []devices.Device
	for i := 0; i < n; i++ {
		name := "gpu" + itoa(i)
		e := top.MustEndpoint(name, links.GPU)
		if err := top.ConnectCustom(e, sw, "ideal", "ideal", 1e300, 0); err != nil {
			t.Fatal(err)
		}
		devs = append(devs, devices.Device{Name: name, Kind: devices.H100_80GB, Endpoint: e})
	}
	c, err := devices.NewCluster("ideal", top, devs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}
