package reports

import (
	"bytes"
	"encoding/csv"
	"placesim/runresult"
	"reflect"
	"strings"
	"testing"
)

// nastyFields are cells that hand-written CSV (Go's %q quoting) breaks:
// commas, double quotes, backslashes, line breaks, leading spaces, a
// lone quote, non-ASCII.
var nastyFields = []string{"", "plain", "a,b", `say "hi"`, `back\slash`, "two\nlines", "cr\r\nlf", "  lead", `"`, "ünï,cødé", `\"`, "x=1 y=2"}

func TestWriteCSVRoundTrip(t *testing.T) {
	t.Parallel()
	header := []string{"index", "name", "error"}
	var rows [][]string
	for i, f := range nastyFields {
		rows = append(rows, []string{strings.Repeat("9", i+1), f, "e: " + f})
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, header, rows); err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(&buf).ReadAll() // FieldsPerRecord 0: every record as wide as the first
	if err != nil {
		t.Fatalf("read back: %v\n%s", err, buf.String())
	}
	// encoding/csv reads \r\n inside a quoted field as \n.
	want := append([][]string{header}, rows...)
	for i := range want {
		for j := range want[i] {
			want[i][j] = strings.ReplaceAll(want[i][j], "\r\n", "\n")
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %q\nwant %q", got, want)
	}
}

func TestWriteCSVRefusesRaggedRows(t *testing.T) {
	t.Parallel()
	err := WriteCSV(&bytes.Buffer{}, []string{"a", "b"}, [][]string{{"1", "2"}, {"3"}})
	if err == nil || !strings.Contains(err.Error(), "row 2 has 1 fields") {
		t.Errorf("ragged rows: %v, want an error naming row 2", err)
	}
}

// TestCSVRoundTrip writes compare results whose placer name and error hold
// commas, quotes and line breaks and reads them back.
func TestCSVRoundTrip(t *testing.T) {
	t.Parallel()
	rows := []*runresult.Record{
		{Point: runresult.Point{Placer: `a,"b"`}, StepTime: 1.5e-3, Throughput: 640, PeakMemory: []int64{10, 20}, Capacity: []int64{100, 100}},
		{Point: runresult.Point{Placer: "c"}, Error: "place: bad, \"quoted\"\nsecond line"},
	}
	var buf bytes.Buffer
	if err := CSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("read back: %v\n%s", err, buf.String())
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want a header and 2 rows:\n%q", len(recs), recs)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	byPlacer := map[string][]string{}
	for _, r := range recs[1:] {
		byPlacer[r[col["placer"]]] = r
	}
	ok := byPlacer[`a,"b"`]
	if ok == nil {
		t.Fatalf("no row for placer a,\"b\": %q", recs)
	}
	if ok[col["stepTime"]] != "0.0015" || ok[col["status"]] != "ok" {
		t.Errorf("row %q: stepTime %q status %q, want 0.0015 ok", ok, ok[col["stepTime"]], ok[col["status"]])
	}
	bad := byPlacer["c"]
	if bad == nil || bad[col["error"]] != `place: bad, "quoted" second line` || bad[col["status"]] != "error" {
		t.Errorf("error row %q", bad)
	}
}
