package csvparse

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Source is one input.
type Source struct {
	Name string // as the user wrote it (or as a glob or directory expanded it), for messages
	Size int64  // bytes on disk; -1 when unknown (stdin)
	Open func() (io.ReadCloser, error)
	// Continues says Open's stream does not begin a file but carries on
	// from inside one (a byte range of it, as --split reads): its first
	// bytes are data even if they look like a UTF-8 byte order mark,
	// which only a file's own first bytes can be. A stream that puts the
	// file's first bytes before the range (its header line) begins the
	// file and does not continue it.
	Continues bool
	// Until, when positive, ends the stream before the first record that
	// begins at or after this offset of it: the record that straddles it
	// is read whole, and nothing after that is read. A --split range
	// ends so, found as it is parsed, rather than by a search that would
	// read the range twice. Blank lines before the next record belong
	// to this stream, as FindRecordStart counts them: a stream with
	// Until b holds the records of the same stream cut short at
	// FindRecordStart(b).
	// Offsets are the stream's bytes, so Until needs a stream the
	// Splitter neither decompresses nor transcodes (see RawOffsets).
	Until int64
	// Listed: the input was found by listing a directory or matching a
	// glob, not named. A loader leaves its own files (error files, their
	// logs) out of such inputs, where the user did not choose them.
	Listed bool
}

// RawOffsets reports whether the Splitter counts a stream in d's
// encoding by its own bytes: UTF-8 is read as it is, other encodings
// are transcoded to it first. Source.Until needs raw offsets.
func RawOffsets(d Dialect) bool {
	enc, err := lookupEncoding(d.Encoding)
	return err == nil && enc == nil
}

// Sources expands cqlsh-style FROM specs. Each spec may be a
// comma-separated list ('a.csv, dir/*.csv'), unless the whole spec names
// an existing file or directory ('export,2024.csv'), which is then that
// one input, taken literally; each item is a glob, a
// directory (its regular files, sorted, not recursive, hidden ones left
// out), a file (or a named pipe, of unknown size), or "-" or
// "STDIN" (any case) for stdin, which may appear once. A leading "~/" is
// the home directory, as in cqlsh. An item that matches nothing is an
// error naming it; all such errors are returned together.
func Sources(specs []string, stdin io.Reader) ([]Source, error) {
	var out []Source
	var errs []error
	usedStdin := false
	for _, spec := range specs {
		if strings.Contains(spec, ",") {
			// A comma in a file name is legal; splitting it would name
			// files that do not exist, or worse, other files.
			if path := homePath(spec); exists(path) {
				srcs, err := expandPath(spec, path)
				if err != nil {
					errs = append(errs, err)
				} else {
					out = append(out, srcs...)
				}
				continue
			}
		}
		for _, item := range strings.Split(spec, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			if item == "-" || strings.EqualFold(item, "stdin") {
				switch {
				case stdin == nil:
					errs = append(errs, fmt.Errorf("%s: no standard input available", item))
				case usedStdin:
					errs = append(errs, fmt.Errorf("%s: standard input can be read only once", item))
				default:
					usedStdin = true
					out = append(out, Source{Name: item, Size: -1, Open: func() (io.ReadCloser, error) {
						return io.NopCloser(stdin), nil
					}})
				}
				continue
			}
			srcs, err := expand(item)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, srcs...)
		}
	}
	if len(out) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no input files given"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// homePath expands a leading "~/" to the home directory, as cqlsh does.
func homePath(item string) string {
	if strings.HasPrefix(item, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, item[2:])
		}
	}
	return item
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func expand(item string) ([]Source, error) {
	path := homePath(item)
	if !strings.ContainsAny(path, "*?[") {
		return expandPath(item, path)
	}
	return expandGlob(item, path)
}

// expandPath returns the file at path, or the files of the directory
// there; item is the name for messages.
func expandPath(item, path string) ([]Source, error) {
	fi, err := os.Stat(path)
	if err != nil {
		// The cause alone ("no such file or directory", "permission
		// denied"): the PathError would name the path a second time.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", item, err)
	}
	if !fi.IsDir() {
		size := fi.Size()
		if !fi.Mode().IsRegular() {
			size = -1 // a pipe such as <(zcat x.gz): its stat size means nothing
		}
		return []Source{fileSource(item, path, size)}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", item, err)
	}
	var out []Source
	for _, e := range ents { // ReadDir sorts by name
		// Hidden files (.DS_Store, .gitkeep) are not data.
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(path, e.Name())
		// Through a link, as a glob and a named file are read: a link
		// (current.csv -> exports/2024-12-04.csv) was left out unsaid.
		fi, err := os.Stat(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is in the message once
			}
			return nil, fmt.Errorf("%s: a link to nothing, or unreadable: %w", filepath.Join(item, e.Name()), err)
		}
		if !fi.Mode().IsRegular() {
			continue // a subdirectory (not read: no recursion), a pipe, a device
		}
		src := fileSource(filepath.Join(item, e.Name()), p, fi.Size())
		src.Listed = true
		out = append(out, src)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: directory has no files", item)
	}
	return out, nil
}

func expandGlob(item, path string) ([]Source, error) {
	matches, err := filepath.Glob(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", item, err)
	}
	sort.Strings(matches)
	var out []Source
	hiddenOK := strings.HasPrefix(filepath.Base(path), ".")
	for _, m := range matches {
		// Like the shell and Python's glob (so cqlsh), * does not match
		// a leading dot.
		if !hiddenOK && strings.HasPrefix(filepath.Base(m), ".") {
			continue
		}
		fi, err := os.Stat(m)
		if err != nil || !fi.Mode().IsRegular() {
			continue // vanished, or a directory the pattern also matched
		}
		src := fileSource(m, m, fi.Size())
		src.Listed = true
		out = append(out, src)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no file matches", item)
	}
	return out, nil
}

func fileSource(name, path string, size int64) Source {
	return Source{Name: name, Size: size, Open: func() (io.ReadCloser, error) {
		return os.Open(path)
	}}
}
