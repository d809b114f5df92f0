package loader

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/loader/internal/runlog"
	"github.com/cqlload/cqlload/source"
)

// Write timestamps of an error file's rows. A row is stamped with its
// run's start plus its place in the input (convert.go), so that of rows
// with one key the later in the input wins. An error file loaded again,
// stamped from its own later start, would overwrite the newer value that
// a later row of the same key wrote in the first run. So the log gives
// each row's timestamp ("… [write timestamp N]"), and a run loading an
// error file beside its log stamps each row with the timestamp the log
// gives it: the table ends as if the row had been written the first
// time. A row that was unknown (maybe applied) is then written again
// idempotently, and the same rows rejected again keep their timestamps
// in the new error file's log.
//
// The log lists an error file's rows in the file's order, one line each;
// they are matched by position, so the file must hold exactly the rows
// its log lists: rows may be mended in place, but one removed or added
// leaves the timestamps of the rows after it unknown, and the run is
// refused before it loads anything (StampsError).

// stampMark ends a log line that gives a row's write timestamp, before
// the optional "[in FILE]" of a numbered error file.
var stampMark = regexp.MustCompile(` \[write timestamp ([0-9]+)\](?: \[in (.+)\])?$`)

// recordedStamps finds the write timestamps that the logs beside the
// inputs record for them, keyed by input name: an input that is an error
// file (ERRFILE, or its numbered ERRFILE.2, …) next to its ERRFILE.log.
// Each input with timestamps is counted through with d, and refused when
// its rows are not as many as its log lists. Inputs split by --split
// cannot be matched by position, so they are refused too.
func recordedStamps(objects []source.Object, d csvparse.Dialect, splitting bool) (map[string][]int64, error) {
	var out map[string][]int64
	for _, obj := range objects {
		local, ok := source.LocalPath(obj.Name)
		if obj.Size < 0 || !ok {
			continue // a stream, or in storage: no log beside it
		}
		stamps, log, err := stampsOf(local)
		if err != nil {
			return nil, err
		} else if stamps == nil {
			continue
		}
		if splitting {
			return nil, &StampsError{File: obj.Name, Log: log, Reason: "an error file cannot be shared out by --split"}
		}
		n, err := countRows(obj.Source, d)
		if err != nil {
			return nil, fmt.Errorf("%s: counting its rows for their write timestamps: %w", obj.Name, err)
		}
		if n != int64(len(stamps)) {
			return nil, &StampsError{File: obj.Name, Log: log, Reason: fmt.Sprintf("it holds %d rows, its log lists %d", n, len(stamps))}
		}
		if out == nil {
			out = map[string][]int64{}
		}
		out[obj.Name] = stamps
	}
	return out, nil
}

// keptSuffix ends the names of an error-file set that a fresh run kept
// (runlog.ErrFiles.Keep): ERRFILE.20261204_101500, ERRFILE.log.20261204_101500,
// ERRFILE.2.20261204_101500, with _2, _3, … when a name was taken.
var keptSuffix = regexp.MustCompile(`\.[0-9]{8}_[0-9]{6}(?:_[0-9]+)?$`)

// stampsOf reads the timestamps the log of error file name gives its
// rows, in order, and names that log; nil when there is none. The log of
// ERRFILE is ERRFILE.log; of ERRFILE.2, also ERRFILE.log, whose lines for
// it end "[in ERRFILE.2]" (and, once there is an ERRFILE.2, those for
// ERRFILE "[in ERRFILE]"). A set a later fresh run kept keeps its log
// too: ERRFILE.SUFFIX's is ERRFILE.log.SUFFIX, whose lines still name
// the files as they were written. Last night's rejected rows, mended
// after tonight's run, must not overwrite tonight's newer values.
func stampsOf(name string) ([]int64, string, error) {
	log, in, own := logOf(name, "")
	if suffix := keptSuffix.FindString(name); suffix != "" && !exists(log) {
		// A kept set's: a split's error file rejects.0 has rejects.0.log,
		// kept as rejects.0.log.SUFFIX.
		log, in, own = logOf(strings.TrimSuffix(name, suffix), suffix)
	}
	f, err := os.Open(log)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	} else if err != nil {
		return nil, "", fmt.Errorf("the log beside %s: %w", name, err)
	}
	defer f.Close()
	var stamps []int64
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadString('\n')
		m := stampMark.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
		if m != nil && stamps == nil {
			// A log of timestamps, if none for this file (a set renamed
			// by hand, whose lines name the old names): the rows are
			// counted against none, and refused, rather than stamped
			// from this run's start without a word.
			stamps = []int64{}
		}
		if m != nil && (m[2] == "" && own || m[2] != "" && filepath.Base(m[2]) == in) {
			ts, perr := strconv.ParseInt(m[1], 10, 64)
			if perr != nil {
				return nil, "", &StampsError{File: name, Log: log, Reason: fmt.Sprintf("a write timestamp in its log is not a number: %v", perr)}
			}
			stamps = append(stamps, ts)
		}
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, "", fmt.Errorf("%s: %w", log, err)
		}
	}
	return stamps, log, nil
}

// logOf names the log of error file name as its run wrote them, the base
// name its lines give it ("[in NAME]"), and whether its lines may also
// name no file: those of ERRFILE do until the run writes an ERRFILE.2.
// The log is name's own, else, for a numbered file, its set's. suffix
// is a kept set's (keptSuffix), which its logs end with too, or "".
func logOf(name, suffix string) (log, in string, own bool) {
	log, own = name+".log"+suffix, true
	if ext := filepath.Ext(name); len(ext) > 1 && runlog.NumberedSuffix(ext) && !exists(log) {
		log, own = strings.TrimSuffix(name, ext)+".log"+suffix, false
	}
	return log, filepath.Base(name), own
}

// exists reports whether there is anything at p.
func exists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

// countRows counts the records of src as a run with d reads them, all of
// them: MAXROWS only stops a run before the last ones.
func countRows(src csvparse.Source, d csvparse.Dialect) (int64, error) {
	d.MaxRows = -1
	s := csvparse.NewSplitter([]csvparse.Source{src}, d, 0, MaxChunkBytes)
	s.KeepTooLong = 0 // only counted
	defer s.Close()
	var n int64
	for {
		c, err := s.Next()
		if err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, err
		}
		n += int64(c.Records)
		c.Release()
	}
}

// stampOf is the write timestamp of record i of cr: the one its error
// file's log records, or the run's base plus the record's place in the
// input. 0 for counter updates, which take none.
func (l *Loader) stampOf(cr *chunkRecord, i int) int64 {
	switch {
	case l.table.Counter:
		return 0
	case i < len(cr.stamps):
		return cr.stamps[i]
	}
	return l.tsBase + cr.ordinal + int64(i)
}
