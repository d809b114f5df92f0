package homedir

import (
	"os/user"
	"path/filepath"
	"testing"
)

func TestExpand(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"~", "/home/tester"},
		{"~/", "/home/tester"},
		{"~/data/a.csv", "/home/tester/data/a.csv"},
		{"~" + me.Username + "/e.err", filepath.Join(me.HomeDir, "e.err")},
		{"~" + me.Username, me.HomeDir},
		{"~no-such-user-here/x", "~no-such-user-here/x"}, // as expanduser leaves it
		{"data/~/x", "data/~/x"},
		{"./~", "./~"},
		{"", ""},
		{"/abs/path", "/abs/path"},
	}
	for _, tc := range tests {
		if got := Expand(tc.in); got != tc.want {
			t.Errorf("Expand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
