package devices_test

import (
	"strings"
	"testing"

	"placesim/devices"
)

// A cluster file may start from a system and add to it: here a CPU
// device on the PCIe of the first node's first adapter.
func TestClusterFileBase(t *testing.T) {
	t.Parallel()
	c, err := devices.ParseCluster([]byte(`
name: dgx-plus-cpu
base: dgx-h100:nodes=2
devices:
  - {name: host0, kind: CPU}
links:
  - {between: [host0, n0-nic0], kind: pcie5}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Devices) != 17 || c.Devices[16].Name != "host0" || c.Devices[0].Name != "n0-gpu0" {
		t.Fatalf("%d devices: %s ... %s", len(c.Devices), c.Devices[0].Name, c.Devices[len(c.Devices)-1].Name)
	}
	if r := c.Route(16, 15); len(r) == 0 {
		t.Fatal("no route from the added CPU to the second node")
	}
	base, err := devices.NewSystem("dgx-h100:nodes=2")
	if err != nil {
		t.Fatal(err)
	}
	if len(base.Devices) != 16 || len(base.Topology.Links) != len(c.Topology.Links)-2 {
		t.Fatal("the base system changed")
	}
	for body, want := range map[string]string{
		"name: x\nbase: dgx-h900\n":         "base",
		"name: x\nbase: some/file.yaml\n":   "base",
		"name: x\nbase: dgx-h100:nodes=0\n": "nodes",
	} {
		if _, err := devices.ParseCluster([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %s", body, err, want)
		}
	}
	if _, err := devices.ParseCluster([]byte("name: x\nbase: 8xH100-nvswitch\n")); err != nil {
		t.Errorf("a preset base: %v", err)
	}
}
