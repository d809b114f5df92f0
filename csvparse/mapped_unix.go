//go:build linux || darwin || freebsd || netbsd || openbsd

package csvparse

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// canMap says whether this system's files can be mapped for the boundary
// search's quote scan.
const canMap = true

// errNotMapped: the file could not be mapped (not a regular file, say);
// the caller reads it instead.
var errNotMapped = errors.New("cannot map the file")

// errShrunk is a fault on a mapped page: the file was cut short while the
// search read it.
var errShrunk = errors.New("the file shrank while it was being read")

// mappedLastQuote returns the index in [lo, hi) of f's last quote byte,
// or -1, scanning a read-only map of those bytes. Only the caller's
// goroutine touches the map, and it is unmapped before returning, so
// nothing can reach it afterwards.
func mappedLastQuote(f *os.File, lo, hi int64, quote byte) (last int, err error) {
	page := int64(os.Getpagesize())
	base := lo &^ (page - 1) // a map begins on a page
	data, err := unix.Mmap(int(f.Fd()), base, int(hi-base), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errNotMapped, err)
	}
	defer func() {
		if uerr := unix.Munmap(data); uerr != nil && err == nil {
			err = fmt.Errorf("unmap: %w", uerr)
		}
	}()
	// A page past the file's end, if it shrank since it was sized, is a
	// SIGBUS; with panicOnFault it is a panic of this goroutine, which
	// becomes the error.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			err = errShrunk
		}
	}()
	return lastIndexByte(data[lo-base:], quote), nil
}
