package loader

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/cqlload/cqlload/csvparse"
)

// hints are advice about the usual first mistakes with a new file: the
// wrong delimiter, a header line loaded as data; and about an input
// whose shape slows the load (rows in token order, order.go). Each kind
// is given once a run, in the reason of the row that shows it and in the
// summary.
type hints struct {
	mu    sync.Mutex
	given map[string]bool
	list  []string
}

func (h *hints) add(kind, text string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.given[kind] {
		return ""
	}
	if h.given == nil {
		h.given = map[string]bool{}
	}
	h.given[kind] = true
	h.list = append(h.list, text)
	return text
}

func (h *hints) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.list...)
}

// Hints returns the hints given so far, as the summary lists them: a
// reporter shows each as it comes (the token order of the input is found
// while loading, and worth knowing before the end). Safe at any time.
func (l *Loader) Hints() []string {
	hs := l.hints.all()
	for i, h := range hs {
		hs[i] = l.red.String(h)
	}
	return hs
}

// delimiterHint: a record with one field where the table expects several,
// that another common delimiter would split into as many.
func (l *Loader) delimiterHint(raw []byte, want int) string {
	for _, d := range []byte{';', '\t', '|', ','} {
		if d == l.opts.Dialect.Delimiter {
			continue
		}
		if bytes.Count(raw, []byte{d})+1 == want {
			name := string(d)
			if d == '\t' {
				name = `\t`
			}
			return l.hints.add("delimiter", fmt.Sprintf("the line has one field, but %q would split it into the %d columns loaded: DELIMITER = '%s'?", name, want, name))
		}
	}
	return ""
}

// headerHint: a rejected record whose fields are the names of the columns
// they load into, while HEADER is false.
func (l *Loader) headerHint(p *plan, fields [][]byte) string {
	if l.opts.Dialect.Header || len(fields) != len(p.fields) {
		return ""
	}
	for i, f := range fields {
		pf := p.fields[i]
		if pf.col == nil || !strings.EqualFold(strings.TrimSpace(string(f)), pf.col.Name) {
			return ""
		}
	}
	return l.hints.add("header", "this line holds the column names: HEADER = true?")
}

// splitSearchHint: --split scanned much more of its input to find where
// its ranges begin than the ranges hold, as it must in a big file without
// quote characters (see csvparse.FindRecordStart).
func splitSearchHint(searched int64, sources []csvparse.Source) string {
	var own int64
	for _, s := range sources {
		own += max(s.Size, 0)
	}
	if searched < 1<<30 || searched < 4*own || own == 0 {
		return ""
	}
	return fmt.Sprintf("to find where its ranges begin, this split scanned %.1f GB of the input before them, %.0f times its own %.1f GB: in a file without quote characters every byte before a range must be read to prove the range does not begin inside a quoted field. A split plan written once (--write-split-plan, then --split-plan in every split) spares the splits that scan; so do many files of a few GB each rather than a few large ones",
		float64(searched)/1e9, float64(searched)/float64(own), float64(own)/1e9)
}

// withHint appends a hint to a reason.
func withHint(reason, hint string) string {
	if hint == "" {
		return reason
	}
	return reason + " (hint: " + hint + ")"
}

// counterRerunHint: a counter load without --resume that stopped part way
// must not be run again on the same input, which would apply its written
// increments twice; cqlsh users rerun a failed COPY as a matter of course.
func (l *Loader) counterRerunHint() {
	if l.table == nil || !l.table.Counter || l.opts.Resume != "" {
		return
	}
	p := l.Progress()
	if p.RowsNotSent+p.RowsUnknown == 0 || p.RowsWritten == 0 {
		return
	}
	l.hints.add("counter rerun", fmt.Sprintf("this counter load stopped part way: run again on the same input, it would apply the %d increments already written a second time. The rows not written are in %s, each with its outcome in %s.log (an unknown one may have been applied); counter loads want --resume, which sends none twice",
		p.RowsWritten, l.opts.ErrFile, l.opts.ErrFile))
}

// maxRowsHint: an error file that holds more rows than MAXROWS lets a
// load of it alone read (a run of several inputs rejects up to MAXROWS
// rows from each), so the command that wrote it would leave the rest
// unread, said nowhere else.
func (l *Loader) maxRowsHint() {
	d := l.opts.Dialect
	if d.MaxRows < 0 {
		return
	}
	// One input: MAXROWS counts the SKIPROWS placeholders too.
	reads := int64(max(0, d.MaxRows-d.SkipRows))
	files, _ := l.errs.State()
	for _, f := range files {
		if f.Rows > reads {
			l.hints.add("maxrows "+f.Path, fmt.Sprintf("%s holds %d rows, but with MAXROWS = %d a load of it reads only %d: load it again with MAXROWS = -1", f.Path, f.Rows, d.MaxRows, reads))
		}
	}
}
