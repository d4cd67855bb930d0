package devices

import (
	"fmt"

	"placesim/links"
	"placesim/workloads"
)

// Device is one placement target of a cluster.
type Device struct {
	// ID is the index in Cluster.Devices.
	ID int
	// Name, e.g. "gpu0"; also the name of its topology endpoint.
	Name string
	// Kind with its figures.
	Kind Kind
	// Memory is the capacity in bytes (the kind's unless overridden).
	Memory int64
	// Endpoint is the device's vertex in the topology.
	Endpoint links.EndpointID
}

// Cluster is a set of devices joined by a topology. Build it with
// NewCluster; it is then read-only and safe for concurrent use.
type Cluster struct {
	Name     string
	Devices  []Device
	Topology *links.Topology
	routes   *routeTable
	comm     *commCache
}

// NewCluster checks the devices and computes the routes between every pair.
// Every device needs an endpoint in topo and a route to every other device.
func NewCluster(name string, topo *links.Topology, devs []Device) (*Cluster, error) {
	if len(devs) == 0 {
		return nil, fmt.Errorf("cluster %q has no devices", name)
	}
	if err := CheckDevices(name, "devices", len(devs)); err != nil {
		return nil, err
	}
	c := &Cluster{Name: name, Devices: make([]Device, len(devs)), Topology: topo}
	seen := map[links.EndpointID]string{}
	for i, d := range devs {
		d.ID = i
		if d.Memory == 0 {
			d.Memory = d.Kind.Memory
		}
		if err := d.Kind.Validate(); err != nil {
			return nil, fmt.Errorf("cluster %q: device %q: %w", name, d.Name, err)
		}
		if d.Memory < 0 {
			return nil, fmt.Errorf("cluster %q: device %q: field memory = %d (valid range: > 0 bytes)", name, d.Name, d.Memory)
		}
		if int(d.Endpoint) < 0 || int(d.Endpoint) >= len(topo.Endpoints) {
			return nil, fmt.Errorf("cluster %q: device %q: endpoint %d not in topology", name, d.Name, d.Endpoint)
		}
		if other, dup := seen[d.Endpoint]; dup {
			return nil, fmt.Errorf("cluster %q: devices %q and %q share endpoint %q", name, other, d.Name, topo.Endpoints[d.Endpoint].Name)
		}
		seen[d.Endpoint] = d.Name
		c.Devices[i] = d
	}
	if err := c.computeRoutes(); err != nil {
		return nil, err
	}
	return c, nil
}

// computeRoutes starts a fresh route table and checks that every device
// reaches every other (see routeTable). It is near-linear in the size of
// the topology when one group of switches and hosts joins every device,
// the shape of every real machine; otherwise it computes the routes of
// every device (O(n E log V)) to find a missing one.
func (c *Cluster) computeRoutes() error {
	c.routes = newRouteTable(c.Topology, c.Devices)
	c.comm = &commCache{}
	if c.routes.joinedByOneFabric() {
		return nil
	}
	for i := range c.Devices {
		row := c.routes.row(i)
		for j := range c.Devices {
			if !c.routes.reaches(row, i, j) {
				return fmt.Errorf("cluster %q: %w from %s to %s", c.Name, links.ErrNoRoute, c.Devices[i].Name, c.Devices[j].Name)
			}
		}
	}
	return nil
}

// Route is the route from device src to device dst (empty when equal).
// The routes from src are found on first use, once, and each route is
// read out of them on its first use (safe for concurrent use).
func (c *Cluster) Route(src, dst int) links.Route {
	if src == dst {
		return links.Route{}
	}
	return c.routes.route(src, dst)
}

// CrossesNIC reports whether the route from device a to b passes a
// network adapter (NIC): a and b are then in different nodes (servers).
func (c *Cluster) CrossesNIC(a, b int) bool {
	return c.routes.crossesNIC(a, b)
}

// TransferTime is the uncontended time to move b bytes from device src to
// device dst (0 when they are the same device):
// links.Topology.TransferTime of their route.
func (c *Cluster) TransferTime(src, dst int, b int64) float64 {
	if src == dst {
		return 0
	}
	return c.routes.transferTime(src, dst, b)
}

// Nearest returns the index in cands (device IDs) of the first device
// with the least TransferTime(src, cand, b), and that time; -1 and +Inf
// when cands is empty. It is what timing every candidate in order and
// keeping strict improvements gives, without timing those that cannot
// win: a candidate src reaches only through a network adapter is not
// timed when one it reaches without is faster than the fastest link
// touching an adapter.
func (c *Cluster) Nearest(src int, b int64, cands []int) (int, float64) {
	return c.routes.nearest(src, b, cands)
}

// OpTime is the true compute time of op on device d.
func (c *Cluster) OpTime(op *workloads.Op, d int) (float64, error) {
	return OpTime(op, &c.Devices[d].Kind)
}

// DeviceByName finds a device by name.
func (c *Cluster) DeviceByName(name string) (int, bool) {
	for i, d := range c.Devices {
		if d.Name == name {
			return i, true
		}
	}
	return -1, false
}

// Accelerators lists the IDs of the accelerator devices.
func (c *Cluster) Accelerators() []int {
	var ids []int
	for _, d := range c.Devices {
		if d.Kind.Class == Accelerator {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// TotalMemory is the sum of the devices' capacities.
func (c *Cluster) TotalMemory() int64 {
	var s int64
	for _, d := range c.Devices {
		s += d.Memory
	}
	return s
}

// Rebuild recomputes routes after the topology was changed (what-ifs).
func (c *Cluster) Rebuild() error { return c.computeRoutes() }

// Clone returns a deep copy whose topology and devices may be changed for a
// what-if study; call Rebuild after changing the topology.
func (c *Cluster) Clone() *Cluster {
	cc := &Cluster{Name: c.Name, Devices: append([]Device(nil), c.Devices...), Topology: c.Topology.Clone()}
	cc.routes = newRouteTable(cc.Topology, cc.Devices)
	cc.comm = &commCache{}
	return cc
}
