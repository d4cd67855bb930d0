package study

// PointFailure is why a chart draws record r as a failed point ("not
// comparable" in its regime, "error", "OOM"), or "" when it has figures:
// the label of reports.SweepPoint.Failed and reports.ScalingPoint.Failed
// for a what-if sweep and a sweep --layout alike.
func PointFailure(r *Record) string {
	switch {
	case r.NotComparable != "":
		return "not comparable"
	case r.Error != "":
		return "error"
	case r.OOM != nil:
		return "OOM"
	}
	return ""
}
