package loader

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cqlload/cqlload/internal/fsutil"
	"github.com/cqlload/cqlload/loader/internal/runlog"
	"github.com/cqlload/cqlload/source"
	"github.com/cqlload/cqlload/split"
)

// The checkpoint's format, and the decision a run takes when it finds
// one, are runlog's (loader/internal/runlog). Here: what the loader
// records in it of its options, and its refusals made the loader's
// *ResumeError.

// identify computes the inputs' identities (runlog.Identify).
func identify(objects []source.Object) ([]runlog.Input, error) {
	ids, err := runlog.Identify(objects)
	return ids, resumeError(err)
}

// identifyOne identifies one input (runlog.IdentifyOne).
func identifyOne(obj source.Object) (runlog.Input, error) {
	id, err := runlog.IdentifyOne(obj)
	return id, resumeError(err)
}

// decideResume reads the checkpoint at path and says what to do
// (runlog.Decide).
func decideResume(path string, ids []runlog.Input, opts map[string]string) (runlog.Action, *runlog.Checkpoint, error) {
	action, f, err := runlog.Decide(path, ids, opts)
	return action, f, resumeError(err)
}

// resumeError makes runlog's refusal the loader's *ResumeError, with the
// same message; other errors are returned as they are.
func resumeError(err error) error {
	if re, ok := err.(*runlog.RefusedError); ok {
		return &ResumeError{Reason: re.Reason}
	}
	return err
}

// shapeOptions are what decides how the input is cut into chunks and
// what a row becomes: a resumed run must use the same ones. They are the
// table, the columns, the chunks' byte cap and every option of
// OptionTable whose Kind is KindShape, and ERRFILE (where the rejected
// rows the checkpoint settled are). The options checkpoints have always
// recorded keep their keys and forms (recordedShape); any other shape
// option is recorded under its name as a flag gives it, when it is not
// at its default, so that checkpoints, split plans and split loads' identities
// of runs at the defaults stay the same when a shape option is added.
func shapeOptions(o *Options, chunkBytes int) map[string]string {
	m := map[string]string{
		"table":      o.Keyspace + "." + o.Table,
		"columns":    strings.Join(o.Columns, ","),
		"chunkbytes": strconv.Itoa(chunkBytes),
		"errfile":    fsutil.Abs(o.ErrFile),
	}
	recorded := map[string]bool{}
	for _, r := range recordedShape {
		if v, ok := r.value(o); ok {
			m[r.key] = v
		}
		for _, name := range r.options {
			recorded[name] = true
		}
	}
	var defaults *Options
	for _, opt := range optionTable() {
		if opt.Kind != KindShape || recorded[opt.Name] {
			continue
		}
		if defaults == nil {
			d := DefaultOptions()
			defaults = &d
		}
		if v := opt.Get(o); v != opt.Get(defaults) {
			m[optionKey(opt.Name)] = v
		}
	}
	return m
}

// recordedShape are the shape options checkpoints have recorded since
// their format 2, each under its key and in its form then: formats holds
// six options.
var recordedShape = []struct {
	key     string
	options []string // their names in OptionTable
	value   func(o *Options) (string, bool)
}{
	{"skipcols", []string{"SKIPCOLS"}, func(o *Options) (string, bool) { return strings.Join(o.SkipCols, ","), true }},
	{"chunksize", []string{"CHUNKSIZE"}, func(o *Options) (string, bool) { return strconv.Itoa(o.ChunkSize), true }},
	{"header", []string{"HEADER"}, func(o *Options) (string, bool) { return strconv.FormatBool(o.Dialect.Header), true }},
	{"delimiter", []string{"DELIMITER"}, func(o *Options) (string, bool) { return string(o.Dialect.Delimiter), true }},
	{"quote", []string{"QUOTE"}, func(o *Options) (string, bool) { return string(o.Dialect.Quote), true }},
	{"escape", []string{"ESCAPE"}, func(o *Options) (string, bool) { return string(o.Dialect.Escape), true }},
	{"skiprows", []string{"SKIPROWS"}, func(o *Options) (string, bool) { return strconv.Itoa(o.Dialect.SkipRows), true }},
	{"maxrows", []string{"MAXROWS"}, func(o *Options) (string, bool) { return strconv.Itoa(o.Dialect.MaxRows), true }},
	{"encoding", []string{"ENCODING"}, func(o *Options) (string, bool) { return o.Dialect.Encoding, true }},
	{"maxrecordbytes", []string{"MAXRECORDBYTES"}, func(o *Options) (string, bool) { return strconv.Itoa(o.Dialect.MaxRecordBytes), true }},
	{"null", []string{"NULL"}, func(o *Options) (string, bool) { return o.Null, true }},
	{"nullmode", []string{"NULLMODE"}, func(o *Options) (string, bool) { return strconv.Itoa(int(o.NullMode)), true }},
	{"ttl", []string{"TTL"}, func(o *Options) (string, bool) { return strconv.Itoa(o.TTL), true }},
	{"formats", []string{"DECIMALSEP", "THOUSANDSSEP", "BOOLSTYLE", "DATETIMEFORMAT", "CQLSHESCAPES", "TIMEZONE"}, func(o *Options) (string, bool) {
		f := o.Formats
		tz := "UTC"
		if f.TimeZone != nil {
			tz = f.TimeZone.String()
		}
		return fmt.Sprintf("%q %q %q %q %v %s", f.DecimalSep, f.ThousandsSep, f.BoolStyle, f.DateTimeFormat, f.CqlshEscapes, tz), true
	}},
	{"split", []string{"SPLIT"}, func(o *Options) (string, bool) { return fmt.Sprintf("%d/%d", o.SplitIndex, max(o.SplitCount, 1)), true }},
	{"splitsize", []string{"SPLITSIZE"}, func(o *Options) (string, bool) { return strconv.FormatInt(o.SplitSize, 10), true }},
	// A checkpoint of another way of planning splits covers other
	// ranges: it must not be resumed. (A split plan's starts are checked
	// against the inputs: any plan that fits gives the same ranges.)
	{"splitplan", []string{"SPLIT"}, func(o *Options) (string, bool) { return split.PlanVersion, o.SplitCount > 1 }},
}
