package study

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"placesim/devices"
	"placesim/internal/suggest"
	"placesim/internal/units"
	"placesim/runresult"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// Setting is one what-if change: a parameter path and a value.
//
// Parameters:
//
//	link.FAMILY_OR_KIND.bandwidth   scale ("4x") or absolute rate ("25GB/s")
//	link.FAMILY_OR_KIND.latency     scale ("0.5x") or absolute ("2us")
//	device.KIND_OR_CLASS.flops      scale or absolute FLOP/s ("100TFLOPS")
//	device.KIND_OR_CLASS.membw      scale or absolute bytes/s
//	device.KIND_OR_CLASS.memory     scale or absolute bytes ("16GiB")
//	batch                           batch size of a zoo workload (integer)
//	precision                       precision of a zoo workload (fp32, tf32,
//	                                fp16, bf16, amp-fp16, amp-bf16)
//	framework                       fusion profile of a zoo workload
//	                                (pytorch, tensorflow, xla, mxnet, tf1-graph)
//	system.KEY                      a setting of a one-line system cluster
//	                                (devices.ParseSystem: nvlink-domain,
//	                                adapter-speed, oversubscription, gpu,
//	                                fabric, ...); the system is rebuilt
//	                                before the other settings apply
//
// FAMILY_OR_KIND is a link family (pcie, nvlink, ib, ethernet, cpu) or kind
// (pcie3, nvlink2, ...) or "all"; KIND_OR_CLASS a device kind (V100-16GB),
// class (accelerator, cpu) or "all".
type Setting = runresult.Setting

// scaleOrAbs parses "4x" as a factor, or an absolute quantity with parse.
func scaleOrAbs(v string, parse func(string) (float64, error)) (factor, abs float64, err error) {
	if f, ok := strings.CutSuffix(v, "x"); ok {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return 0, 0, fmt.Errorf("scale %q (valid: a positive factor such as 0.5x or 4x)", v)
		}
		return x, 0, nil
	}
	a, err := parse(v)
	return 0, a, err
}

// ApplySettings returns the workload spec and a copy of the cluster with
// the settings applied. The input cluster is not changed.
func ApplySettings(workload string, c *devices.Cluster, settings []Setting) (string, *devices.Cluster, error) {
	if len(settings) == 0 {
		return workload, c, nil
	}
	cc := c.Clone()
	// system settings rebuild the cluster from its spec, first
	spec := ""
	for _, s := range settings {
		if key, ok := strings.CutPrefix(s.Param, "system."); ok {
			if spec == "" {
				spec = c.Name
			}
			var err error
			if spec, err = devices.SetSystemSetting(spec, key, s.Value); err != nil {
				return "", nil, fmt.Errorf("what-if %s: %w", s, err)
			}
		}
	}
	if spec != "" {
		var err error
		if cc, err = devices.NewSystem(spec); err != nil {
			return "", nil, err
		}
	}
	for _, s := range settings {
		parts := strings.Split(s.Param, ".")
		var err error
		switch {
		case len(parts) == 2 && parts[0] == "system":
			// applied above
		case len(parts) == 1 && parts[0] == "batch":
			workload, err = setBatch(workload, s.Value)
		case len(parts) == 1 && (parts[0] == "precision" || parts[0] == "framework"):
			if err = checkZooSetting(parts[0], s.Value); err == nil {
				workload, err = setZooParam(workload, parts[0], s.Value)
			}
		case len(parts) == 3 && parts[0] == "link":
			err = applyLink(cc, parts[1], parts[2], s.Value)
		case len(parts) == 3 && parts[0] == "device":
			err = applyDevice(cc, parts[1], parts[2], s.Value)
		default:
			err = fmt.Errorf("unknown parameter (valid: link.FAMILY.bandwidth|latency, device.KIND.flops|membw|memory, batch, precision, framework, system.KEY)")
		}
		if err != nil {
			return "", nil, fmt.Errorf("what-if %s: %w", s, err)
		}
	}
	if err := cc.Rebuild(); err != nil {
		return "", nil, err
	}
	return workload, cc, nil
}

// linkFamilies are the link families of package links (Kind.Family), for
// the "did you mean" of a what-if naming one a cluster lacks.
var linkFamilies = []string{"pcie", "nvlink", "ib", "ethernet", "cpu"}

func applyLink(c *devices.Cluster, sel, field, v string) error {
	var parse func(string) (float64, error)
	switch field {
	case "bandwidth":
		parse = units.ParseRate
	case "latency":
		parse = units.ParseSeconds
	default:
		return fmt.Errorf("%w: link field %q (valid: bandwidth, latency)%s", ErrUnknownTarget, field, suggest.DidYouMean(field, []string{"bandwidth", "latency"}))
	}
	f, abs, err := scaleOrAbs(v, parse)
	if err != nil {
		return err
	}
	n := 0
	for i := range c.Topology.Links {
		l := &c.Topology.Links[i]
		if sel != "all" && !strings.EqualFold(sel, l.Family) && !strings.EqualFold(sel, l.Kind) {
			continue
		}
		n++
		p := &l.Bandwidth
		if field == "latency" {
			p = &l.Latency
		}
		if f > 0 {
			*p *= f
		} else {
			*p = abs
		}
	}
	if n == 0 {
		var valid []string
		for _, l := range c.Topology.Links {
			for _, x := range []string{l.Family, l.Kind} {
				if x != "" && !slices.Contains(valid, x) {
					valid = append(valid, x)
				}
			}
		}
		valid = append(valid, "all")
		hint := suggest.DidYouMean(sel, valid)
		if hint == "" {
			// a family this cluster lacks, misspelt: say so, and what it has
			if f := suggest.Closest(sel, linkFamilies); f != "" {
				hint = fmt.Sprintf("; did you mean %q? (this cluster has no %s links)", f, f)
			}
		}
		return fmt.Errorf("%w: cluster %q has no %q links (valid: %s)%s", ErrUnknownTarget, c.Name, sel, strings.Join(valid, ", "), hint)
	}
	return nil
}

func applyDevice(c *devices.Cluster, sel, field, v string) error {
	var parse func(string) (float64, error)
	switch field {
	case "flops":
		parse = units.ParseFLOPS
	case "membw":
		parse = units.ParseRate
	case "memory":
		parse = func(s string) (float64, error) { b, err := units.ParseBytes(s); return float64(b), err }
	default:
		return fmt.Errorf("%w: device field %q (valid: flops, membw, memory)%s", ErrUnknownTarget, field, suggest.DidYouMean(field, []string{"flops", "membw", "memory"}))
	}
	f, abs, err := scaleOrAbs(v, parse)
	if err != nil {
		return err
	}
	set := func(p *float64) {
		if f > 0 {
			*p *= f
		} else {
			*p = abs
		}
	}
	n := 0
	for i := range c.Devices {
		d := &c.Devices[i]
		if sel != "all" && !strings.EqualFold(sel, d.Kind.Name) && !strings.EqualFold(sel, string(d.Kind.Class)) {
			continue
		}
		n++
		switch field {
		case "flops":
			// measured times speed up by the same ratio as the peak
			old := d.Kind.PeakFLOPS
			nw := old
			set(&nw)
			d.Kind.ScaleCompute(nw / old) // every precision's peak alike
			ms := d.Kind.MeasuredScale
			if ms == 0 {
				ms = 1
			}
			d.Kind.MeasuredScale = ms * old / d.Kind.PeakFLOPS
		case "membw":
			set(&d.Kind.MemBandwidth)
		case "memory":
			m := float64(d.Memory)
			set(&m)
			d.Memory = int64(m)
		}
	}
	if n == 0 {
		var valid []string
		for _, d := range c.Devices {
			for _, x := range []string{d.Kind.Name, string(d.Kind.Class)} {
				if x != "" && !slices.Contains(valid, x) {
					valid = append(valid, x)
				}
			}
		}
		valid = append(valid, "all")
		return fmt.Errorf("%w: cluster %q has no %q devices (valid: %s)%s", ErrUnknownTarget, c.Name, sel, strings.Join(valid, ", "), suggest.DidYouMean(sel, valid))
	}
	return nil
}

func setBatch(workload, v string) (string, error) {
	b, err := strconv.Atoi(v)
	if err != nil || b < 1 || b > MaxBatch {
		return "", fmt.Errorf("batch %q (valid range: integer in [1, %d])", v, MaxBatch)
	}
	if !strings.HasPrefix(workload, "zoo:") {
		return "", fmt.Errorf("batch can only be varied for zoo workloads, not %q", workload)
	}
	name, q, _ := strings.Cut(workload, "?")
	vals, err := url.ParseQuery(q)
	if err != nil {
		return "", err
	}
	vals.Set("batch", strconv.Itoa(b))
	return name + "?" + vals.Encode(), nil
}

// checkZooSetting checks a precision or framework what-if value.
func checkZooSetting(param, v string) error {
	if param == "precision" {
		_, err := workloads.ParsePrecision(v)
		return err
	}
	if !slices.Contains(zoo.Frameworks(), v) {
		return fmt.Errorf("framework %q (valid: %s)", v, strings.Join(zoo.Frameworks(), ", "))
	}
	return nil
}

// setZooParam sets a zoo workload's parameter key to v.
func setZooParam(workload, key, v string) (string, error) {
	if !strings.HasPrefix(workload, "zoo:") {
		return "", fmt.Errorf("%s can only be varied for zoo workloads, not %q", key, workload)
	}
	name, q, _ := strings.Cut(workload, "?")
	vals, err := url.ParseQuery(q)
	if err != nil {
		return "", err
	}
	vals.Set(key, v)
	return name + "?" + vals.Encode(), nil
}

// MaxBatch is the largest batch a what-if setting may ask for (the zoo's
// own bound on batch).
const MaxBatch = 1 << 20

// maxRangeValue bounds the values of a LO..HI:N range without the x
// suffix: integers up to 2^53 are exact in float64 and fit an int.
const maxRangeValue = 1 << 53

// CheckSetting checks a what-if setting's parameter and value before any
// work: a known parameter, a batch in [1, MaxBatch], a scale that is a
// positive finite factor. Values that need the cluster (a device kind, an
// absolute rate) are checked when they are applied.
func CheckSetting(s Setting) error {
	parts := strings.Split(s.Param, ".")
	switch {
	case len(parts) == 1 && parts[0] == "batch":
		if b, err := strconv.Atoi(s.Value); err != nil || b < 1 || b > MaxBatch {
			return fmt.Errorf("what-if %s: batch %q (valid range: integer in [1, %d])", s, s.Value, MaxBatch)
		}
		return nil
	case len(parts) == 1 && (parts[0] == "precision" || parts[0] == "framework"):
		if err := checkZooSetting(parts[0], s.Value); err != nil {
			return fmt.Errorf("what-if %s: %w", s, err)
		}
		return nil
	case len(parts) == 2 && parts[0] == "system":
		if !slices.Contains(devices.SystemKeys(), parts[1]) {
			return fmt.Errorf("what-if %s: %w: system key %q (valid: %s)%s", s, ErrUnknownTarget, parts[1], strings.Join(devices.SystemKeys(), ", "), suggest.DidYouMean(parts[1], devices.SystemKeys()))
		}
		return nil
	case len(parts) == 3 && parts[0] == "link" && (parts[2] == "bandwidth" || parts[2] == "latency"),
		len(parts) == 3 && parts[0] == "device" && (parts[2] == "flops" || parts[2] == "membw" || parts[2] == "memory"):
		if strings.HasSuffix(s.Value, "x") {
			if _, _, err := scaleOrAbs(s.Value, nil); err != nil {
				return fmt.Errorf("what-if %s: %w", s, err)
			}
		}
		return nil
	}
	return fmt.Errorf("what-if %s: %w: %q (valid: link.FAMILY.bandwidth|latency, device.KIND.flops|membw|memory, batch, precision, framework, system.KEY)%s",
		s, ErrUnknownTarget, s.Param, settingHint(parts))
}

// settingHint is the "did you mean" of a what-if parameter that is none
// of the grammar's: the closest field of link. or device., or the closest
// of batch, precision, framework, link and device.
func settingHint(parts []string) string {
	switch {
	case len(parts) == 3 && parts[0] == "link":
		if c := suggest.Closest(parts[2], []string{"bandwidth", "latency"}); c != "" {
			return fmt.Sprintf("; did you mean %q?", "link."+parts[1]+"."+c)
		}
	case len(parts) == 3 && parts[0] == "device":
		if c := suggest.Closest(parts[2], []string{"flops", "membw", "memory"}); c != "" {
			return fmt.Sprintf("; did you mean %q?", "device."+parts[1]+"."+c)
		}
	case len(parts) == 2:
		if c := suggest.Closest(parts[0], []string{"system"}); c != "" {
			return fmt.Sprintf("; did you mean %q?", c+"."+parts[1])
		}
	case len(parts) == 3:
		if c := suggest.Closest(parts[0], []string{"link", "device"}); c != "" {
			return fmt.Sprintf("; did you mean %q?", c+"."+parts[1]+"."+parts[2])
		}
	case len(parts) == 1:
		return suggest.DidYouMean(parts[0], []string{"batch", "precision", "framework"})
	}
	return ""
}

// ExpandRange turns a range into values: "0.1x..10x:7" gives 7 factors in
// log steps; "32..512:5" 5 integers in log steps (rounded); "a,b,c" the
// list as given.
func ExpandRange(r string) ([]string, error) {
	lohi, nstr, ok := strings.Cut(r, ":")
	lo, hi, isRange := strings.Cut(lohi, "..")
	if !isRange {
		if ok {
			return nil, fmt.Errorf("range %q: a step count needs LO..HI:N", r)
		}
		var out []string
		for _, v := range strings.Split(r, ",") {
			if v = strings.TrimSpace(v); v == "" {
				return nil, fmt.Errorf("range %q: empty value", r)
			}
			out = append(out, v)
		}
		return out, nil
	}
	n := 5
	if ok {
		var err error
		if n, err = strconv.Atoi(nstr); err != nil || n < 2 || n > 10000 {
			return nil, fmt.Errorf("range %q: step count %q (valid range: integer in [2, 10000])", r, nstr)
		}
	}
	scale := strings.HasSuffix(lo, "x")
	if scale != strings.HasSuffix(hi, "x") {
		return nil, fmt.Errorf("range %q: bounds must both be scales (0.1x..10x) or both values (32..512)", r)
	}
	a, err1 := strconv.ParseFloat(strings.TrimSuffix(lo, "x"), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSuffix(hi, "x"), 64)
	if err1 != nil || err2 != nil || !(a > 0) || !(b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return nil, fmt.Errorf("range %q: bounds must be finite positive numbers, both with or both without the x suffix", r)
	}
	if !scale && max(a, b) > maxRangeValue {
		return nil, fmt.Errorf("range %q: bound %g out of range (valid: values in (0, %g]; scales such as 0.1x..10x)", r, max(a, b), float64(maxRangeValue))
	}
	var out []string
	for i := 0; i < n; i++ {
		v := a * math.Pow(b/a, float64(i)/float64(n-1))
		if q := b / a; math.IsInf(q, 0) || q == 0 {
			// the bounds' quotient leaves float64 (1e-300x..1e300x):
			// interpolate the logarithms instead, never printing the
			// "+Infx" the user did not type (issue 31)
			v = math.Exp(math.Log(a) + (math.Log(b)-math.Log(a))*float64(i)/float64(n-1))
		}
		if math.IsInf(v, 0) || !(v > 0) {
			return nil, fmt.Errorf("range %q: step %d of %d is %g (valid: finite positive values; narrow the range)", r, i+1, n, v)
		}
		if scale {
			out = append(out, strconv.FormatFloat(v, 'g', 4, 64)+"x")
		} else {
			out = append(out, strconv.Itoa(int(math.Round(v))))
		}
	}
	return out, nil
}
