package ceiling

import (
	"reflect"
	"testing"
)

func TestRingReplicaSet(t *testing.T) {
	r := &ring{ends: []int64{-100, 0, 100}, set: []uint64{1, 2, 4}}
	tests := []struct {
		token int64
		want  uint64
	}{
		{-200, 1}, {-100, 1}, {-99, 2}, {0, 2}, {1, 4}, {100, 4}, {101, 1}, // past the last end wraps to the first range
	}
	for _, tt := range tests {
		if got := r.replicaSet(tt.token); got != tt.want {
			t.Errorf("replicaSet(%d) = %d, want %d", tt.token, got, tt.want)
		}
	}
}

func TestGroupBatches(t *testing.T) {
	// Tokens -150 and 50 fall in different replica sets.
	rg := &ring{ends: []int64{-100, 100}, set: []uint64{1, 2}}
	mk := func(spec string) []*Row {
		// spec: one letter per row naming its partition; a–m own token
		// -150 (set 1), n–z token 50 (set 2).
		var rows []*Row
		for _, c := range spec {
			tok := int64(-150)
			if c >= 'n' {
				tok = 50
			}
			rows = append(rows, &Row{partition: string(c), Token: tok, size: 10})
		}
		return rows
	}
	show := func(bs [][]*Row) []string {
		var out []string
		for _, b := range bs {
			s := ""
			for _, r := range b {
				s += r.partition
			}
			out = append(out, s)
		}
		return out
	}
	tests := []struct {
		name                       string
		rows                       string
		minRows, maxRows, maxBytes int
		want                       []string
	}{
		{"pooled by replica set", "anbo", 10, 20, 1000, []string{"ab", "no"}},
		{"big partition alone, cut at max rows", "aaaaab", 3, 2, 1000, []string{"aa", "aa", "a", "b"}},
		{"small partitions kept whole", "aabbcc", 3, 5, 1000, []string{"aabb", "cc"}},
		{"byte cap", "abcd", 10, 20, 25, []string{"ab", "cd"}},
		{"partition over the byte cap is cut on its own", "aaab", 10, 20, 25, []string{"aa", "a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := show(groupBatches(mk(tt.rows), tt.minRows, tt.maxRows, tt.maxBytes, rg))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("groupBatches(%q) = %v, want %v", tt.rows, got, tt.want)
			}
		})
	}
}

func TestRoutingKey(t *testing.T) {
	v := func(s string) *value { return &value{b: []byte(s)} }
	tests := []struct {
		pk   []int
		vals []any
		want string
	}{
		{[]int{0}, []any{v("abc"), v("x")}, "abc"},
		{[]int{1, 0}, []any{v("ab"), v("c")}, "\x00\x01c\x00\x00\x02ab\x00"},
	}
	for _, tt := range tests {
		s := &Source{pk: tt.pk}
		got := string(s.routingKey(&Row{Values: tt.vals}))
		if got != tt.want {
			t.Errorf("routingKey(%v) = %q, want %q", tt.pk, got, tt.want)
		}
	}
}
