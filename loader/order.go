package loader

import (
	"fmt"
	"strings"
	"sync"

	"github.com/cqlload/cqlload/loader/internal/ring"
	"github.com/cqlload/cqlload/loader/internal/tokenorder"
	"github.com/cqlload/cqlload/source"
)

// orderWatch looks for an input read in token order (package
// tokenorder): a full-table export, loaded as it is, keeps one replica
// set working at a time. It is said once, as a hint, with the remedy
// that fits the input.
type orderWatch struct {
	mu   sync.Mutex
	ring *ring.Ring // the ring d counts by; a new one (tablets) starts afresh
	d    *tokenorder.Detector
	// windowRows is the detector's window; 0 is its default. Tests of a
	// few thousand rows set less.
	windowRows int64
	// inputs are the run's inputs, whose kind picks the hint's remedy.
	inputs []source.Object
}

// detector is the detector for rg, nil when rg cannot show token order
// (one replica set).
func (w *orderWatch) detector(rg *ring.Ring) *tokenorder.Detector {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ring != rg {
		w.ring = rg
		w.d = tokenorder.New(rg.SetShares(), w.windowRows, 0, 0)
		if !w.d.Watching() {
			w.d = nil
		}
	}
	return w.d
}

// noteOrder counts a converted chunk's rows by replica set, with t, the
// converter's tally, and gives the hint when they show token order. A
// --split run is left alone: splitting is the remedy, and each split's
// range is in the order of the file.
func (l *Loader) noteOrder(cr *chunkRecord, rows []row, t *tokenorder.Tally) {
	if len(rows) == 0 || l.opts.SplitCount > 1 {
		return
	}
	rg := l.tokens.Load()
	if rg == nil {
		return
	}
	d := l.order.detector(rg)
	if d == nil {
		return
	}
	t.Reset(cr.chunk.File, rg.Sets())
	for i := range rows {
		t.Add(rg.SetOf(rows[i].token), rows[i].token, rows[i].line)
	}
	if f, ok := d.Add(t); ok {
		l.hints.add("token order", orderHint(f, rg, inputKindOf(l.order.inputs, f.File)))
	}
}

// orderHint says what f found, and what to do about it.
func orderHint(f tokenorder.Finding, rg *ring.Ring, kind inputKind) string {
	var sets []string
	for _, s := range f.Sets {
		var hosts []string
		for _, id := range rg.SetHosts(s) {
			if a := rg.Addrs[id]; a != "" {
				id = a
			}
			hosts = append(hosts, id)
		}
		sets = append(sets, strings.Join(hosts, "+"))
	}
	where := fmt.Sprintf("lines %d–%d of %s", f.FirstLine, f.LastLine, f.File)
	if f.Partitions > 0 {
		return fmt.Sprintf("%s are in %s, which one replica set of %d holds (%s): it takes every row while the other nodes wait, whatever the order of the file. Rows spread over more partition keys would spread the load",
			where, plural(f.Partitions, "partition"), rg.Sets(), strings.Join(sets, ", then "))
	}
	return fmt.Sprintf("%s went to one replica set at a time, of %d (%s): the input is in token order, as a full-table export is, so one node works while the others wait. %s",
		where, rg.Sets(), strings.Join(sets, ", then "), orderRemedy(kind))
}

func plural(n int, what string) string {
	if n == 1 {
		return "one " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// inputKind is what an input is, for the remedy of its token order.
type inputKind int

const (
	plainFile inputKind = iota
	streamInput
	gzipFile
	zstdFile
)

// inputKindOf is the kind of the input named name: a stream when it
// cannot be read at an offset (stdin, a pipe), else by its first bytes
// or, failing them, its name.
func inputKindOf(inputs []source.Object, name string) inputKind {
	for _, in := range inputs {
		if in.Name != name {
			continue
		}
		if in.ReaderAt == nil {
			return streamInput
		}
		var magic [4]byte
		n, _ := in.ReaderAt.ReadAt(magic[:], 0)
		lower := strings.ToLower(name)
		switch {
		case n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b, strings.HasSuffix(lower, ".gz"):
			return gzipFile
		case n == 4 && string(magic[:]) == "\x28\xb5\x2f\xfd", strings.HasSuffix(lower, ".zst"), strings.HasSuffix(lower, ".zstd"):
			return zstdFile
		}
		return plainFile
	}
	return plainFile
}

// orderRemedy is what to do about an input read in token order, by its
// kind. cqlload reads a plain file, a bgzip file or a zstd file of
// several frames from several places at once (stripes, --readers), so
// the remedy of a stream or of a compressed file of one part is one of
// those; a file of those kinds read in order was not striped, and the
// remedy says what stripes need.
func orderRemedy(kind inputKind) string {
	const stripes = "cqlload reads a plain UTF-8 file of at least two --stripe-size from --readers places at once"
	switch kind {
	case streamInput:
		return "A stream is read in order: write it to a file and load that (" + stripes + "); or shuffle the rows"
	case gzipFile:
		return "A gzip file of one member is read from its start: compress it with bgzip, whose blocks cqlload reads from --readers places at once, " +
			"or decompress it and load the plain file (" + stripes + "); or shuffle the rows"
	case zstdFile:
		return "A zstd file of one frame is read from its start: compress it in frames (pzstd, or zstd's seekable format), which cqlload reads from --readers places at once, " +
			"or decompress it and load the plain file (" + stripes + "); or shuffle the rows"
	}
	return "It was read from its start: " + stripes + ", without SKIPROWS, MAXROWS or --repeat; or load it with --split I/N in N processes at once; or shuffle the rows"
}
