package links

import (
	"fmt"
	"math"
)

// EndpointID indexes Topology.Endpoints.
type EndpointID int

// LinkID indexes Topology.Links.
type LinkID int

// EndpointType says what an endpoint is; it decides how a transfer passes
// through it (see Endpoint.StoreAndForward).
type EndpointType string

// Endpoint types.
const (
	GPU        EndpointType = "gpu"
	CPU        EndpointType = "cpu"
	PCIeSwitch EndpointType = "pcie-switch"
	NVSwitch   EndpointType = "nvswitch"
	NIC        EndpointType = "nic"
	NetSwitch  EndpointType = "net-switch"
)

// Endpoint is a vertex of the topology.
type Endpoint struct {
	ID   EndpointID
	Name string
	Type EndpointType
}

// StoreAndForward reports whether a transfer routed through this endpoint is
// received whole before it is sent on (staging through host memory: a CPU or
// a GPU), as opposed to forwarded as it streams in (switches and NICs,
// cut-through).
func (e Endpoint) StoreAndForward() bool { return e.Type == CPU || e.Type == GPU }

// Link is one direction of a physical connection: an FCFS channel.
type Link struct {
	ID       LinkID
	From, To EndpointID
	// Kind is the link kind's name; Family its family (for what-ifs).
	Kind, Family string
	// Bandwidth in bytes/s (the kind's bandwidth times the width).
	Bandwidth float64
	// Latency of the hop in seconds.
	Latency float64
}

// HopTime is the time the link is busy with a transfer of b bytes:
// latency + bytes/bandwidth.
func (l Link) HopTime(b int64) float64 { return l.Latency + float64(b)/l.Bandwidth }

// Topology is a directed multigraph of endpoints and links. Build it with
// AddEndpoint and Connect; it is then read-only and safe for concurrent use.
type Topology struct {
	Endpoints []Endpoint
	Links     []Link
	out       [][]LinkID
	byName    map[string]EndpointID
}

// NewTopology returns an empty topology.
func NewTopology() *Topology { return &Topology{byName: map[string]EndpointID{}} }

// AddEndpoint adds a named endpoint; names must be unique.
func (t *Topology) AddEndpoint(name string, typ EndpointType) (EndpointID, error) {
	if name == "" {
		return 0, fmt.Errorf("endpoint name is empty")
	}
	if _, dup := t.byName[name]; dup {
		return 0, fmt.Errorf("duplicate endpoint %q", name)
	}
	id := EndpointID(len(t.Endpoints))
	t.Endpoints = append(t.Endpoints, Endpoint{ID: id, Name: name, Type: typ})
	t.out = append(t.out, nil)
	t.byName[name] = id
	return id, nil
}

// MustEndpoint is AddEndpoint for preset builders whose names are fixed.
func (t *Topology) MustEndpoint(name string, typ EndpointType) EndpointID {
	id, err := t.AddEndpoint(name, typ)
	if err != nil {
		panic(err) // only reached by a bug in a preset
	}
	return id
}

// Endpoint looks an endpoint up by name.
func (t *Topology) Endpoint(name string) (EndpointID, bool) {
	id, ok := t.byName[name]
	return id, ok
}

// Connect joins a and b by a full-duplex connection of width lane groups of
// kind k (two directed links). Width < 1 is an error.
func (t *Topology) Connect(a, b EndpointID, k Kind, width int) error {
	if width < 1 {
		return fmt.Errorf("link %s-%s: width %d (valid range: >= 1)", t.name(a), t.name(b), width)
	}
	return t.ConnectCustom(a, b, k.Name, k.Family, k.Bandwidth*float64(width), k.Latency)
}

// ConnectCustom joins a and b with an explicit bandwidth (bytes/s) and
// latency (s) in each direction.
func (t *Topology) ConnectCustom(a, b EndpointID, kind, family string, bw, lat float64) error {
	if int(a) < 0 || int(a) >= len(t.Endpoints) || int(b) < 0 || int(b) >= len(t.Endpoints) {
		return fmt.Errorf("link %d-%d: endpoint out of range [0, %d)", a, b, len(t.Endpoints))
	}
	if a == b {
		return fmt.Errorf("link %s-%s: an endpoint cannot link to itself", t.name(a), t.name(b))
	}
	if !(bw > 0) || math.IsInf(bw, 0) {
		return fmt.Errorf("link %s-%s: bandwidth %g (valid range: > 0 bytes/s)", t.name(a), t.name(b), bw)
	}
	if !(lat >= 0) || math.IsInf(lat, 0) {
		return fmt.Errorf("link %s-%s: latency %g (valid range: >= 0 s)", t.name(a), t.name(b), lat)
	}
	for _, d := range [2][2]EndpointID{{a, b}, {b, a}} {
		id := LinkID(len(t.Links))
		t.Links = append(t.Links, Link{ID: id, From: d[0], To: d[1], Kind: kind, Family: family, Bandwidth: bw, Latency: lat})
		t.out[d[0]] = append(t.out[d[0]], id)
	}
	return nil
}

func (t *Topology) name(e EndpointID) string {
	if int(e) >= 0 && int(e) < len(t.Endpoints) {
		return t.Endpoints[e].Name
	}
	return fmt.Sprint(int(e))
}

// Out lists the links leaving e.
func (t *Topology) Out(e EndpointID) []LinkID { return t.out[e] }

// Clone returns a deep copy, for what-if studies that change link figures.
func (t *Topology) Clone() *Topology {
	c := &Topology{
		Endpoints: append([]Endpoint(nil), t.Endpoints...),
		Links:     append([]Link(nil), t.Links...),
		out:       make([][]LinkID, len(t.out)),
		byName:    make(map[string]EndpointID, len(t.byName)),
	}
	for i, o := range t.out {
		c.out[i] = append([]LinkID(nil), o...)
	}
	for k, v := range t.byName {
		c.byName[k] = v
	}
	return c
}

// Grow reserves room for endpoints more endpoints and links more
// full-duplex connections, so that building a large system does not
// reallocate as it goes.
func (t *Topology) Grow(endpoints, links int) {
	if endpoints > 0 {
		t.Endpoints = append(make([]Endpoint, 0, len(t.Endpoints)+endpoints), t.Endpoints...)
		t.out = append(make([][]LinkID, 0, len(t.out)+endpoints), t.out...)
		if len(t.byName) == 0 {
			t.byName = make(map[string]EndpointID, endpoints)
		}
	}
	if links > 0 {
		t.Links = append(make([]Link, 0, len(t.Links)+2*links), t.Links...)
	}
}
