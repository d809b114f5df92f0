//go:build linux || darwin || freebsd || netbsd || openbsd

package csvparse

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// TestMappedLastQuote: the mapped scan finds the last quote at any page
// offset, and a file cut short under it is an error, not a crash.
func TestMappedLastQuote(t *testing.T) {
	const size = 3 << 20
	data := bytes.Repeat([]byte("x"), size)
	for _, q := range []int{0, 4095, 4096, 1 << 20, size - 1} {
		data[q] = '"'
	}
	f, path := openTemp(t, data)
	for _, tc := range []struct {
		lo, hi int64
		want   int
	}{
		{0, size, size - 1},
		{0, size - 1, 1 << 20},
		{1, 4096, 4094},                           // lo inside a page
		{4095, 4097, 1},                           // two pages, one byte of each
		{4097, 1 << 20, -1},                       // none
		{100, 101, -1},                            // one byte
		{4096, 4097, 0},                           // a quote at lo, on a page's start
		{1<<20 - 5, size, size - 1 - (1<<20 - 5)}, // the last of two
	} {
		got, err := mappedLastQuote(f, tc.lo, tc.hi, '"')
		if err != nil || got != tc.want || got >= 0 && data[tc.lo+int64(got)] != '"' {
			t.Errorf("[%d, %d): %d, %v; want %d", tc.lo, tc.hi, got, err, tc.want)
		}
	}

	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	if _, err := mappedLastQuote(f, 0, size, '"'); !errors.Is(err, errShrunk) {
		t.Fatalf("a file cut short under the map: %v, want errShrunk", err)
	}
	// The fault left this goroutine as it was: a later scan works.
	if got, err := mappedLastQuote(f, 0, 4096, '"'); err != nil || got != 4095 {
		t.Fatalf("after the fault: %d, %v; want 4095", got, err)
	}
}
