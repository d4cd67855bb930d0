package study

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"placesim/internal/readfile"
	"placesim/internal/units"
)

// MaxRecords is the most records one results file may hold: a results
// file has one record per point of its scenario, and a scenario at most
// MaxPoints points. A file with more is refused while it is read, before
// the records past the limit are decoded (issue 31: results were decoded
// whole, so that about 900,000 records took more than 1 GB).
const MaxRecords = MaxPoints

// RecordBytes is the memory one held record takes beyond its strings and
// per-device figures (the size of the Record value): merge counts
// RecordBytes times the scenario's points against its memory budget
// before it allocates them.
const RecordBytes = int64(unsafe.Sizeof(Record{}))

// ErrTooManyRecords marks a results file, or a merge, holding more
// records than its limit (MaxRecords, or the records a memory budget
// holds).
var ErrTooManyRecords = errors.New("too many records")

// resultsHandler receives a results file as it is decoded: head is
// called once when the records array begins, with every field that came
// before it (format, version, stamp, scenario, shard in the files
// placesim writes); record is called with each record in turn, which it
// may keep (the pointer is its own). A non-nil error from either ends
// the read with that error.
type resultsHandler struct {
	head   func(*Results) error
	record func(i int, r *Record) error
	// known, when not nil, is the file's head read by an earlier pass:
	// head is called with it (see scanResults).
	known *Results
	// maxRecords is the most records read (0: MaxRecords).
	maxRecords int
}

// errHeadLater is decodeResults' answer when head needs fields the file
// puts after its records (a file whose keys were sorted, as jq -S or
// Python's sort_keys do): the records are skipped and scanResults reads
// the file a second time with the head known.
var errHeadLater = errors.New("results head after the records")

// ReadResults reads a results.json, checking its format and version and
// holding at most MaxRecords records in DefaultMergeMemory. The file is
// decoded as a stream, one record at a time, never held whole in memory.
func ReadResults(path string) (*Results, error) {
	return ReadResultsWithin(context.Background(), path, 0)
}

// ReadResultsWithin is ReadResults with the records it holds bounded by
// budget bytes (0: DefaultMergeMemory), counted as MergeFiles counts
// them (RecordBytes per record the slice has room for, and each record's
// strings and per-device figures) as each is decoded: a file whose records take more is refused at the
// record that passes the limit, with ErrResultsMemory naming the file,
// the record and the limit (check's baseline: issue 31).
func ReadResultsWithin(ctx context.Context, path string, budget int64) (*Results, error) {
	if budget <= 0 {
		budget = DefaultMergeMemory
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var recs []Record
	var held int64 // beyond the Record values
	res, err := scanResults(ctx, path, resultsHandler{
		record: func(i int, r *Record) error {
			held += int64(len(r.Workload)+len(r.Cluster)+len(r.Placer)+len(r.Regime)) + int64(len(r.Capacity))*8 + heldBytes(r)
			for _, x := range r.Settings {
				held += 32 + int64(len(x.Param)+len(x.Value))
			}
			recs = append(recs, *r)
			// the slice's capacity, not its length: append grows it ahead
			if used := int64(cap(recs))*RecordBytes + held; used > budget {
				return fmt.Errorf("results %q: records[%d]: %w: the records read so far take about %s, more than the limit of %s",
					path, i, ErrResultsMemory, units.Bytes(used), units.Bytes(budget))
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	res.Records = recs
	return res, nil
}

// ErrResultsMemory marks a results file whose records would take more
// memory than the reader's budget (ReadResultsWithin).
var ErrResultsMemory = errors.New("results memory")

// scanResults decodes the results file at path as a stream, handing
// each record to h.record rather than keeping it; the Results returned
// hold every field but the records. The format and version are checked
// as soon as the records begin (and at the end, should the file put
// them after its records), the record count against MaxRecords as each
// record is read, and ctx every 4096 records.
func scanResults(ctx context.Context, path string, h resultsHandler) (*Results, error) {
	f, err := readfile.Open(path, readfile.MaxData)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	res, err := decodeResults(ctx, path, f, h)
	if err != errHeadLater {
		return res, err
	}
	// the scenario (or format) follows the records: read the file
	// again, its head now known, for the records
	f.Close()
	g, err := readfile.Open(path, readfile.MaxData)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer g.Close()
	h.known = res
	return decodeResults(ctx, path, g, h)
}

// checkResultsHead refuses a results file of another format or version
// (ErrResultsVersion) or without a scenario.
func checkResultsHead(path string, r *Results) error {
	if err := checkResultsFormat(path, r); err != nil {
		return err
	}
	if r.Scenario == nil {
		return fmt.Errorf("results %q: no scenario recorded", path)
	}
	return nil
}

// checkResultsFormat refuses a results file of another format or version
// (ErrResultsVersion).
func checkResultsFormat(path string, r *Results) error {
	if r.Format != ResultsFormat || r.Version != ResultsVersion {
		return fmt.Errorf("results %q: %w: format %q version %d, this placesim reads %q version %d (re-record it with this placesim: placesim run)",
			path, ErrResultsVersion, r.Format, r.Version, ResultsFormat, ResultsVersion)
	}
	return nil
}

// decodeResults is scanResults on a reader; path names it in errors.
// Top-level keys match the Results fields as encoding/json matches them
// (exactly, else without regard to case); unknown keys are skipped.
func decodeResults(ctx context.Context, path string, rd io.Reader, h resultsHandler) (*Results, error) {
	dec := json.NewDecoder(bufio.NewReaderSize(rd, 1<<16))
	bad := func(err error) error { return fmt.Errorf("results %q: %w", path, midFile(err)) }
	tok, err := dec.Token()
	switch {
	case err == io.EOF:
		return nil, fmt.Errorf("results %q: the file is empty", path)
	case err != nil:
		return nil, bad(err)
	case tok != json.Delim('{'):
		return nil, bad(fmt.Errorf("want a JSON object, found %v", tokenText(tok)))
	}
	var res Results
	sawRecords, sawFormat, sawVersion, later := false, false, false, false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		key, _ := kt.(string)
		var dst any
		switch {
		case strings.EqualFold(key, "format"):
			dst, sawFormat = &res.Format, true
		case strings.EqualFold(key, "version"):
			dst, sawVersion = &res.Version, true
		case strings.EqualFold(key, "stamp"):
			dst = &res.Stamp
		case strings.EqualFold(key, "scenario"):
			dst = &res.Scenario
		case strings.EqualFold(key, "shard"):
			dst = &res.Shard
		case strings.EqualFold(key, "warnings"):
			dst = &res.Warnings
		case strings.EqualFold(key, "records"):
			if sawRecords {
				return nil, bad(fmt.Errorf("records: given twice"))
			}
			sawRecords = true
			// a file of another format is refused before its records
			// are read, if it said so before them
			if sawFormat && sawVersion {
				if err := checkResultsFormat(path, &res); err != nil {
					return nil, err
				}
			}
			each := h.record
			switch {
			case h.head == nil:
			case h.known != nil:
				if err := h.head(h.known); err != nil {
					return nil, err
				}
			case sawFormat && sawVersion && res.Scenario != nil:
				if err := h.head(&res); err != nil {
					return nil, err
				}
			default:
				// skip the records now, read them in a second pass
				later, each = true, nil
			}
			if err := decodeRecords(ctx, path, dec, each, h.maxRecords); err != nil {
				return nil, err
			}
			continue
		default:
			var skip json.RawMessage
			dst = &skip
		}
		if err := dec.Decode(dst); err != nil {
			return nil, bad(fmt.Errorf("%s: %w", key, err))
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, bad(err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, bad(err)
		}
		return nil, bad(fmt.Errorf("%v after the results object (want one JSON object)", tokenText(tok)))
	}
	if err := checkResultsHead(path, &res); err != nil {
		return nil, err
	}
	if later {
		return &res, errHeadLater
	}
	return &res, nil
}

// decodeRecords decodes the records array, one record at a time.
func decodeRecords(ctx context.Context, path string, dec *json.Decoder, each func(int, *Record) error, limit int) error {
	if limit <= 0 || limit > MaxRecords {
		limit = MaxRecords
	}
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("results %q: records: %w", path, midFile(err))
	}
	if tok == nil { // null: no records
		return nil
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("results %q: records: want an array, found %v", path, tokenText(tok))
	}
	for n := 0; dec.More(); n++ {
		if n >= limit {
			return fmt.Errorf("results %q: records: %w: more than %d (valid: at most %d, one per point of a scenario of at most %d points)",
				path, ErrTooManyRecords, limit, limit, MaxPoints)
		}
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r := new(Record)
		if err := dec.Decode(r); err != nil {
			return fmt.Errorf("results %q: records[%d]: %w", path, n, err)
		}
		if each != nil {
			if err := each(n, r); err != nil {
				return err
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return fmt.Errorf("results %q: records: %w", path, midFile(err))
	}
	return nil
}

// midFile is err, io.ErrUnexpectedEOF (the file ends inside its JSON)
// for io.EOF.
func midFile(err error) error {
	if err == io.EOF {
		return fmt.Errorf("the file ends inside its JSON value: %w", io.ErrUnexpectedEOF)
	}
	return err
}

// tokenText is a JSON token as an error shows it.
func tokenText(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", string(v))
	case string:
		return fmt.Sprintf("string %q", truncate(v, 40))
	case nil:
		return "null"
	default:
		b, _ := json.Marshal(v)
		return string(bytes.TrimSpace(b))
	}
}

// truncate shortens s to at most n bytes for an error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
