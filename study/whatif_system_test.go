package study_test

import (
	"testing"

	"placesim/devices"
	"placesim/study"
)

// system.KEY what-ifs rebuild a one-line system with the setting, before
// the other settings apply.
func TestSystemWhatIf(t *testing.T) {
	t.Parallel()
	c, err := devices.Resolve("dgx-h100:nodes=2")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []study.Setting{{Param: "system.adapter-speed", Value: "800Gb/s"}, {Param: "system.gpu", Value: "B200"}} {
		if err := study.CheckSetting(s); err != nil {
			t.Fatal(err)
		}
	}
	_, cc, err := study.ApplySettings("zoo:mlp", c, []study.Setting{
		{Param: "system.adapter-speed", Value: "800Gb/s"}, {Param: "system.gpu", Value: "B200"},
		{Param: "device.all.memory", Value: "0.5x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if cc.Devices[0].Kind.Name != "B200" || cc.Comm().NetBW[0] != 100e9 || cc.Devices[0].Memory != devices.B200.Memory/2 {
		t.Fatalf("%s: %s, %g B/s, %d bytes", cc.Name, cc.Devices[0].Kind.Name, cc.Comm().NetBW[0], cc.Devices[0].Memory)
	}
	if c.Devices[0].Kind.Name != "H100-80GB" {
		t.Fatal("the input cluster changed")
	}
	if err := study.CheckSetting(study.Setting{Param: "system.colour", Value: "red"}); err == nil {
		t.Fatal("unknown system key accepted")
	}
	p, err := devices.NewPreset("8xH100-nvswitch")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := study.ApplySettings("zoo:mlp", p, []study.Setting{{Param: "system.gpu", Value: "B200"}}); err == nil {
		t.Fatal("a system setting on a preset accepted")
	}
}
