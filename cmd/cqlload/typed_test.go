package main

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestUntilDot(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		in   io.Reader
		want string
		err  error
	}{
		{"ends at the dot", strings.NewReader("1,a\n2,b\n.\n3,c\n"), "1,a\n2,b\n", nil},
		{"a dot and CRLF", strings.NewReader("1,a\r\n.\r\n3,c\r\n"), "1,a\r\n", nil},
		{"a dot without a newline", strings.NewReader("1,a\n."), "1,a\n", nil},
		{"a dot inside a field is data", strings.NewReader("1,.\n.5,x\n"), "1,.\n.5,x\n", nil},
		{"no dot: to the end", strings.NewReader("1,a\n2,b"), "1,a\n2,b", nil},
		{"a read error is kept", io.MultiReader(strings.NewReader("1,a\n2,"), iotest.ErrReader(boom)), "1,a\n2,", boom},
	}
	for _, tc := range tests {
		got, err := io.ReadAll(iotest.OneByteReader(&untilDot{r: bufio.NewReader(tc.in)}))
		if string(got) != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("%s: read %q, %v; want %q, %v", tc.name, got, err, tc.want, tc.err)
		}
	}
}
