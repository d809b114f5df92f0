package loader

import (
	"errors"
	"testing"
	"time"
)

// TestTrackerSilence: the words a run stopped by a silent cluster ends
// with. The last error a node answered with is named when nodes
// answered; the driver's own last error (no connection left) alone said
// "no write succeeded (the nodes answered only with errors) … last
// error: no hosts available", naming no answer.
func TestTrackerSilence(t *testing.T) {
	now := time.Unix(1000, 0)
	type failure struct {
		err      string
		answered bool
		ago      time.Duration
	}
	tests := []struct {
		name      string
		failures  []failure
		what, why string
	}{
		{"nothing", nil, "no node answered", "no request was answered"},
		{"timeouts only", []failure{{"timed out", false, time.Second}},
			"no node answered", "last error: timed out"},
		{"an old answer", []failure{{"Unavailable", true, time.Minute}, {"timed out", false, time.Second}},
			"no node answered", "last error: timed out"},
		{"answers, then quiet", []failure{{"Unavailable", true, 6 * time.Second}, {"no hosts available", false, time.Second}},
			"no node answered", "the last answer, 6s ago: Unavailable; last error: no hosts available"},
		{"answers until half way", []failure{{"Unavailable", true, 4900 * time.Millisecond}},
			"no write succeeded (the nodes answered only with errors)", "last answer: Unavailable"},
		{"answers", []failure{{"Unavailable", true, time.Second}},
			"no write succeeded (the nodes answered only with errors)", "last answer: Unavailable"},
		{"an answer, then no host", []failure{{"Unavailable", true, 2 * time.Second}, {"no hosts available", false, time.Second}},
			"no write succeeded (the nodes answered only with errors)", "last answer: Unavailable; last error: no hosts available"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTracker(false)
			for _, f := range tc.failures {
				tr.failed(errors.New(f.err), f.answered)
				if f.answered {
					tr.lastErrAnswer.Store(now.Add(-f.ago).UnixNano())
				}
			}
			what, why := tr.silence(10*time.Second, now)
			if what != tc.what || why != tc.why {
				t.Errorf("got %q: %q, want %q: %q", what, why, tc.what, tc.why)
			}
		})
	}
}
