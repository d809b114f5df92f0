package loader

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/split"
)

// splitSources narrows the inputs to split SplitIndex of SplitCount
// (--split I/N): package split deals the files, and byte ranges of the
// uncompressed ones, to the splits by their sizes alone, and
// csvparse.FindRecordStart moves each range's ends to record starts, so
// that N processes given the same inputs load every record exactly once.
//
// A range that does not begin the file is a source of its own, named
// FILE@OFFSET, whose line numbers count from the range's start; with
// HEADER it is read after the file's header line, so that it maps columns
// by name as the file's first range does. Files are not cut when SKIPROWS
// or MAXROWS is given (they count a file's records from its start), nor
// when the encoding or compression rules it out.
func splitSources(sources []csvparse.Source, o *Options) ([]csvparse.Source, error) {
	if o.SplitCount <= 1 {
		return sources, nil
	}
	files := make([]split.File, len(sources))
	byName := map[string]csvparse.Source{}
	for i, s := range sources {
		if s.Size < 0 {
			return nil, fmt.Errorf("--split: %s is a stream, which only one process can read", s.Name)
		}
		if _, dup := byName[s.Name]; dup {
			return nil, fmt.Errorf("--split: %s is given twice", s.Name)
		}
		byName[s.Name] = s
		ok, err := rangeable(s, o)
		if err != nil {
			return nil, err
		}
		files[i] = split.File{Name: s.Name, Size: s.Size, Splittable: ok}
	}
	plan, err := split.Plan(files, o.SplitCount, o.SplitSize)
	if err != nil {
		return nil, fmt.Errorf("--split: %w", err)
	}
	var out []csvparse.Source
	for _, u := range split.Merge(plan[o.SplitIndex]) {
		src := byName[u.Name]
		if u.Whole || u.Start == 0 && u.End >= src.Size {
			out = append(out, src)
			continue
		}
		r, err := rangeSource(src, u.Start, u.End, o.Dialect)
		if err != nil {
			return nil, err
		}
		if r.Size > 0 || u.Start == 0 {
			out = append(out, r)
		}
	}
	return out, nil
}

// rangeable says whether s may be cut into byte ranges: a regular file,
// uncompressed, in an encoding that can be cut, with no option that
// counts records from the file's start.
func rangeable(s csvparse.Source, o *Options) (bool, error) {
	if s.Size <= 0 || o.Dialect.SkipRows > 0 || o.Dialect.MaxRows >= 0 {
		return false, nil
	}
	f, err := os.Open(s.Name)
	if err != nil {
		return false, fmt.Errorf("--split: %w", err)
	}
	defer f.Close()
	ok, err := csvparse.SplittableFile(s.Name, f, s.Size, o.Dialect)
	if err != nil {
		return false, fmt.Errorf("--split: %s: %w", s.Name, err)
	}
	return ok, nil
}

// rangeSource is the part of file src whose records begin in [start, end).
func rangeSource(src csvparse.Source, start, end int64, d csvparse.Dialect) (csvparse.Source, error) {
	f, err := os.Open(src.Name)
	if err != nil {
		return csvparse.Source{}, fmt.Errorf("--split: %w", err)
	}
	defer f.Close()
	boundary := func(off int64) (int64, error) {
		p, err := csvparse.FindRecordStart(f, src.Size, off, d)
		if err != nil {
			return 0, fmt.Errorf("--split: %s: %w", src.Name, err)
		}
		return p, nil
	}
	from, err := boundary(start)
	if err != nil {
		return csvparse.Source{}, err
	}
	to, err := boundary(end)
	if err != nil {
		return csvparse.Source{}, err
	}
	if start == 0 {
		// The file's first range: read as the file is, header and all.
		name := src.Name
		return csvparse.Source{Name: name, Size: to, Path: name, Open: func() (io.ReadCloser, error) {
			return openSection(name, 0, to, nil)
		}}, nil
	}
	var header []byte
	if d.Header {
		// The header is the file's first record, after any BOM and
		// blank lines: up to where the second one begins.
		h, err := csvparse.HeaderEnd(f, src.Size, d)
		if err != nil {
			return csvparse.Source{}, fmt.Errorf("--split: %s: header: %w", src.Name, err)
		}
		header = make([]byte, h)
		if _, err := f.ReadAt(header, 0); err != nil {
			return csvparse.Source{}, fmt.Errorf("--split: %s: header: %w", src.Name, err)
		}
	}
	name := src.Name
	return csvparse.Source{Name: fmt.Sprintf("%s@%d", name, from), Size: to - from, Path: name, Open: func() (io.ReadCloser, error) {
		return openSection(name, from, to, header)
	}}, nil
}

// openSection reads [from, to) of the file at path, after prefix.
func openSection(path string, from, to int64, prefix []byte) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(prefix), io.NewSectionReader(f, from, to-from)), f}, nil
}
