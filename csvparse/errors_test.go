package csvparse

import (
	"errors"
	"testing"
)

func TestInputErrorNamesFileOnce(t *testing.T) {
	tests := []struct {
		name string
		err  InputError
		want string
	}{
		{"local", InputError{File: "a.csv", Err: errors.New("open a.csv: permission denied")},
			"a.csv: open a.csv: permission denied"},
		{"object naming itself", InputError{File: "s3://b/a.csv", Err: errors.New("s3://b/a.csv: access denied (api error)")},
			"s3://b/a.csv: access denied (api error)"},
		{"truncated object", InputError{File: "s3://b/a.csv.gz", Truncated: true, Err: errors.New("s3://b/a.csv.gz: unexpected EOF")},
			"s3://b/a.csv.gz: file is truncated (unexpected EOF)"},
		{"other object named", InputError{File: "s3://b/a.csv", Err: errors.New("s3://b/b.csv: gone")},
			"s3://b/a.csv: s3://b/b.csv: gone"},
		{"line", InputError{File: "a.csv", Err: errors.New("boom"), Line: 7},
			"a.csv: boom; lines 7 and later were not read"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
