package source

import (
	"errors"
	"fmt"
	"io"

	"github.com/cqlload/cqlload/csvparse"
)

// localObject gives a csvparse.Source of a local file ranged and random
// access through the file its Open returns (an *os.File). Stdin and
// pipes (Size < 0) get neither.
func localObject(s csvparse.Source) Object {
	o := Object{Source: s}
	if s.Size < 0 || s.Open == nil {
		return o
	}
	o.OpenRange = func(off, n int64) (io.ReadCloser, error) {
		if off < 0 {
			return nil, fmt.Errorf("%s: negative offset %d", s.Name, off)
		}
		rc, err := s.Open()
		if err != nil {
			return nil, err
		}
		sk, ok := rc.(io.Seeker)
		if !ok {
			rc.Close()
			return nil, fmt.Errorf("%s: not seekable", s.Name)
		}
		if _, err := sk.Seek(off, io.SeekStart); err != nil {
			rc.Close()
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		if n < 0 {
			return rc, nil
		}
		return limitedCloser{io.LimitReader(rc, n), rc}, nil
	}
	o.ReaderAt = localReaderAt{s}
	return o
}

type limitedCloser struct {
	io.Reader
	io.Closer
}

// localReaderAt opens the file for each ReadAt, so that it holds no file
// descriptor between the few reads it serves.
type localReaderAt struct{ s csvparse.Source }

func (l localReaderAt) ReadAt(p []byte, off int64) (int, error) {
	rc, err := l.s.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	ra, ok := rc.(io.ReaderAt)
	if !ok {
		return 0, errors.New(l.s.Name + ": no random access")
	}
	return ra.ReadAt(p, off)
}
