package loader

import (
	"testing"
	"time"
)

// TestFinishing: the limiters are told the run is finishing once the
// input left would be settled within finishAhead at the rate so far, and
// never while the input's size is unknown.
func TestFinishing(t *testing.T) {
	tests := []struct {
		name string
		p    Progress
		want bool
	}{
		{"half done after 10 s: 10 s left", Progress{BytesDone: 50, BytesTotal: 100, Elapsed: 10 * time.Second}, false},
		{"95% done after 10 s: about 0.5 s left", Progress{BytesDone: 95, BytesTotal: 100, Elapsed: 10 * time.Second}, true},
		{"80% done after 10 s: 2.5 s left", Progress{BytesDone: 80, BytesTotal: 100, Elapsed: 10 * time.Second}, false},
		{"all done", Progress{BytesDone: 100, BytesTotal: 100, Elapsed: time.Second}, true},
		{"stdin: size unknown", Progress{BytesDone: 100, BytesTotal: -1, Elapsed: time.Second}, false},
		{"nothing settled yet", Progress{BytesDone: 0, BytesTotal: 100, Elapsed: time.Second}, false},
		{"not started", Progress{BytesDone: 10, BytesTotal: 100}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := finishing(tc.p); got != tc.want {
				t.Errorf("finishing(%+v) = %v, want %v", tc.p, got, tc.want)
			}
		})
	}
}
