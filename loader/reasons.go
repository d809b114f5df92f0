package loader

import (
	"regexp"
	"sync"

	"github.com/cqlload/cqlload/internal/redact"
)

// Reason is one reason rows were not written, for the summary: the
// reason of the first such row, where that row was, and how many rows
// had it. Rows whose reasons differ only in the values they quote and
// the numbers they name (`invalid int "x1"`, `invalid int "x2"`; a
// record of 3 fields or of 5) have one Reason, and so do all the rows of
// a file whose header does not fit the table.
type Reason struct {
	Reason string `json:"reason"`
	First  string `json:"first"` // file:line[:column]
	Rows   int64  `json:"rows"`
}

// MaxReasons bounds the distinct reasons a summary lists, in the order
// they first came; rows of reasons past them are counted in
// Summary.OtherReasonRows. A file of a million rows each wrong its own
// way would otherwise hold a million reasons in memory.
const MaxReasons = 100

// reasonTable counts rows by reason (reasonKey) as the ledger records
// their outcomes.
type reasonTable struct {
	mu    sync.Mutex
	index map[string]int // reasonKey → place in list
	list  []Reason
	other int64 // rows whose reason came after the first MaxReasons
}

// add counts one row not written. group, when not "", is the reason
// rows are grouped and shown under (a bad header's full reason, which
// the row's own only refers to); else the row's reason is, grouped by
// its form.
func (t *reasonTable) add(reason, group, where string) {
	key := group
	if key == "" {
		key = reasonKey(reason)
	} else {
		reason = group
	}
	t.addRows(key, Reason{Reason: reason, First: where, Rows: 1})
}

// addRows counts r.Rows rows under key, r's reason and place if first.
func (t *reasonTable) addRows(key string, r Reason) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i, ok := t.index[key]; ok {
		t.list[i].Rows += r.Rows
		return
	}
	if len(t.list) >= MaxReasons {
		t.other += r.Rows
		return
	}
	if t.index == nil {
		t.index = map[string]int{}
	}
	t.index[key] = len(t.list)
	t.list = append(t.list, r)
}

// MergeReasons adds up the reasons of several summaries (the splits of
// one load, in order) as Summary.Reasons and OtherReasonRows count them:
// reasons of one form are one, the first of them kept, at most
// MaxReasons, the rest counted in the other rows returned.
func MergeReasons(lists [][]Reason, others []int64) ([]Reason, int64) {
	var t reasonTable
	for _, list := range lists {
		for _, r := range list {
			t.addRows(reasonKey(r.Reason), r)
		}
	}
	for _, n := range others {
		t.other += n
	}
	return t.snapshot()
}

// snapshot returns the reasons in the order they first came, and the
// rows of the others.
func (t *reasonTable) snapshot() ([]Reason, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Reason(nil), t.list...), t.other
}

// quotedOrNumber matches what a reason says of its own row: a value as
// %q quotes it, and numbers (a field count, a line, a length).
var quotedOrNumber = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|[0-9]+`)

// reasonKey is the form of a reason: its quoted values and numbers
// replaced, so that rows wrong in the same way count as one reason.
func reasonKey(reason string) string {
	return quotedOrNumber.ReplaceAllStringFunc(reason, func(m string) string {
		if m[0] == '"' {
			return `"…"`
		}
		return "#"
	})
}

// maskSummary is s with the secrets r knows masked in its text: the
// reasons, warnings and file names that messages of the run filled in.
func maskSummary(r *redact.Redactor, s Summary) Summary {
	s.FirstWarning = r.String(s.FirstWarning)
	s.Aborted = r.String(s.Aborted)
	s.ErrFile, s.ErrLog = r.String(s.ErrFile), r.String(s.ErrLog)
	for _, l := range []*[]string{&s.ErrFiles, &s.ErrLogs, &s.PreviousErrFiles, &s.InputsLeftOut, &s.Hints} {
		if *l != nil {
			m := make([]string, len(*l))
			for i, v := range *l {
				m[i] = r.String(v)
			}
			*l = m
		}
	}
	if s.Reasons != nil {
		m := make([]Reason, len(s.Reasons))
		for i, re := range s.Reasons {
			m[i] = Reason{Reason: r.String(re.Reason), First: r.String(re.First), Rows: re.Rows}
		}
		s.Reasons = m
	}
	return s
}
