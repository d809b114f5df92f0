package loader

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/internal/fsutil"
	"github.com/cqlload/cqlload/split"
)

// TestOptionKinds: every option says what it changes. An option added
// without a Kind fails here, before a resumed run could continue with
// input parsed otherwise than the checkpoint's.
func TestOptionKinds(t *testing.T) {
	for _, opt := range OptionTable() {
		if opt.Kind == KindUnset {
			t.Errorf("option %s has no Kind: say whether it changes the input's shape (KindShape), the run (KindRun) or its output (KindOutput)", opt.label())
		}
	}
}

// shapeSamples are a value other than the default of every shape
// option.
var shapeSamples = map[string]string{
	"MAXROWS": "5", "SKIPROWS": "2", "SKIPCOLS": "a", "REPEAT": "3", "SPLIT": "1/2", "SPLITSIZE": "1000000",
	"HEADER": "true", "DELIMITER": "|", "QUOTE": "'", "ESCAPE": "", "ENCODING": "latin-1", "MAXRECORDBYTES": "1000",
	"NULL": "N", "NULLMODE": "unset", "DATETIMEFORMAT": "%d/%m/%Y", "TIMEZONE": "Local", "DECIMALSEP": ",",
	"THOUSANDSSEP": ".", "BOOLSTYLE": "Y,N", "CQLSHESCAPES": "true", "TTL": "60", "CHUNKSIZE": "10", "READERS": "3", "STRIPESIZE": "65536",
	"WRITETIMEFIELD": "wt", "TTLFIELD": "ttl",
}

// TestShapeOptionsRecorded: the checkpoint records every shape option:
// a run that changes one is told apart from the run it would resume.
func TestShapeOptionsRecorded(t *testing.T) {
	base := DefaultOptions()
	base.Keyspace, base.Table = "ks", "t"
	want := shapeOptions(&base, MaxChunkBytes)
	for _, opt := range OptionTable() {
		if opt.Kind != KindShape {
			continue
		}
		v, ok := shapeSamples[opt.Name]
		if !ok {
			t.Errorf("shape option %s: no sample value in shapeSamples", opt.Name)
			continue
		}
		o := base
		if err := o.SetOption(opt.Name, v); err != nil {
			t.Errorf("%s = %q: %v", opt.Name, v, err)
			continue
		}
		if got := shapeOptions(&o, MaxChunkBytes); maps.Equal(got, want) {
			t.Errorf("%s = %q leaves the checkpoint's options as they were: %v", opt.Name, v, got)
		}
	}
}

// shapeOptionsV2 is shapeOptions as checkpoint format 2 was first
// written, kept to check that checkpoints, split plans and split loads'
// identities stay the same.
func shapeOptionsV2(o *Options, chunkBytes int) map[string]string {
	d := o.Dialect
	f := o.Formats
	tz := "UTC"
	if f.TimeZone != nil {
		tz = f.TimeZone.String()
	}
	m := map[string]string{
		"table":          o.Keyspace + "." + o.Table,
		"columns":        strings.Join(o.Columns, ","),
		"skipcols":       strings.Join(o.SkipCols, ","),
		"chunksize":      strconv.Itoa(o.ChunkSize),
		"chunkbytes":     strconv.Itoa(chunkBytes),
		"header":         strconv.FormatBool(d.Header),
		"delimiter":      string(d.Delimiter),
		"quote":          string(d.Quote),
		"escape":         string(d.Escape),
		"skiprows":       strconv.Itoa(d.SkipRows),
		"maxrows":        strconv.Itoa(d.MaxRows),
		"encoding":       d.Encoding,
		"maxrecordbytes": strconv.Itoa(d.MaxRecordBytes),
		"null":           o.Null,
		"nullmode":       strconv.Itoa(int(o.NullMode)),
		"ttl":            strconv.Itoa(o.TTL),
		"formats":        fmt.Sprintf("%q %q %q %q %v %s", f.DecimalSep, f.ThousandsSep, f.BoolStyle, f.DateTimeFormat, f.CqlshEscapes, tz),
		"errfile":        fsutil.Abs(o.ErrFile),
		"split":          fmt.Sprintf("%d/%d", o.SplitIndex, max(o.SplitCount, 1)),
		"splitsize":      strconv.FormatInt(o.SplitSize, 10),
	}
	if o.SplitCount > 1 {
		m["splitplan"] = split.PlanVersion
	}
	return m
}

// sinceFormat2 are the shape options added since checkpoints' format 2,
// by the flag they are recorded under.
var sinceFormat2 = map[string]string{"REPEAT": "repeat", "READERS": "readers", "STRIPESIZE": "stripesize", "WRITETIMEFIELD": "writetimefield", "TTLFIELD": "ttlfield"}

// TestShapeOptionsCompatible: the options of format 2 keep their keys
// and forms, whatever their values; an option recorded since is left
// out at its default, so a checkpoint of a run at the defaults reads as
// it was written.
func TestShapeOptionsCompatible(t *testing.T) {
	for name, v := range shapeSamples {
		o := DefaultOptions()
		o.Keyspace, o.Table, o.Columns, o.ErrFile = "ks", "t", []string{"a", `"B"`}, "e.err"
		if err := o.SetOption(name, v); err != nil {
			t.Fatal(err)
		}
		got, old := shapeOptions(&o, 1<<20), shapeOptionsV2(&o, 1<<20)
		if flag := sinceFormat2[name]; flag != "" { // recorded when not at the default
			if got[flag] != v {
				t.Errorf("%s = %s recorded as %q", name, v, got[flag])
			}
			delete(got, flag)
		}
		if !maps.Equal(got, old) {
			t.Errorf("%s = %q: options %v, format 2 wrote %v", name, v, got, old)
		}
	}
	o := DefaultOptions()
	if keys := slices.Sorted(maps.Keys(shapeOptions(&o, 0))); !slices.Equal(keys, slices.Sorted(maps.Keys(shapeOptionsV2(&o, 0)))) {
		t.Errorf("keys at the defaults: %v", keys)
	}
}
