package wholefile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Bounds on the files read whole. A file read whole is held in memory
// at once, so one without a bound (a script named by mistake in place of
// the data, /dev/zero, a pipe that never ends) ended the process in
// "fatal error: out of memory". Each bound is far above what such a file
// holds in use, and is named in the error when crossed.
const (
	// MaxScript bounds -f's file of CQL statements: a COPY statement
	// and its options fit in a few kilobytes.
	MaxScript = 1 << 20
	// MaxConfig bounds a cqlshrc, a credentials file and CONFIGFILE.
	MaxConfig = 1 << 20
	// MaxPasswordLine bounds the first line of a password file, the
	// only part read.
	MaxPasswordLine = 4 << 10
	// MaxPEM bounds a CA bundle, a certificate or a key: the system's
	// whole CA bundle is about 200 KiB.
	MaxPEM = 4 << 20
	// MaxSummary bounds a JSON summary that cqlload summarize merges.
	MaxSummary = 64 << 20
	// MaxState bounds the files a run writes for the next one to read
	// back: the checkpoint, the split plan and the counter journal,
	// which grow with the chunks of a run, never with its rows.
	MaxState = 1 << 30
	// MaxSchema bounds a CQL schema file given to cqlsim.
	MaxSchema = 16 << 20
)

// sizeText writes n bytes in the largest binary unit that divides it.
func sizeText(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// Read returns the content of the file at path, which is what kind says
// (for the error), or a *TooLargeError when it holds more than limit
// bytes. It reads at most limit+1 bytes, whatever the file is: a device
// or a pipe that never ends costs that much and no more. Errors from
// opening or reading are os's, which name the path.
func Read(path, kind string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= limit {
		buf.Grow(int(fi.Size()) + 1)
	}
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(buf.Len()) > limit {
		return nil, &TooLargeError{Path: path, Kind: kind, Limit: limit}
	}
	return buf.Bytes(), nil
}

// ReadLine returns the first line of the file at path without its line
// break (\n or \r\n), reading no further than that line: a password
// file's other lines are not the reader's business, and one of
// /dev/zero's never ends. A first line longer than limit bytes is a
// *TooLargeError.
func ReadLine(path, kind string, limit int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := bufio.NewReaderSize(io.LimitReader(f, limit+2), 512)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return "", &os.PathError{Op: "read", Path: path, Err: err}
		}
		break
	}
	line = bytes.TrimRight(bytes.TrimSuffix(line, []byte("\n")), "\r")
	if int64(len(line)) > limit {
		return "", &TooLargeError{Path: path, Kind: kind, Limit: limit, Line: true}
	}
	return string(line), nil
}
