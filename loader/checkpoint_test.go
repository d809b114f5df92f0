package loader

import "testing"

func TestCheckpointPrefix(t *testing.T) {
	cp := &checkpoint{ahead: map[int64]bool{}}
	steps := []struct {
		seq, wantNext int64
	}{
		{1, 0}, {3, 0}, {0, 2}, {2, 4}, {5, 4}, {4, 6},
	}
	for _, s := range steps {
		cp.done(s.seq, 10)
		if cp.next != s.wantNext {
			t.Fatalf("after chunk %d: prefix ends at %d, want %d", s.seq, cp.next, s.wantNext)
		}
	}
	if len(cp.ahead) != 0 || cp.rowsDone != 60 {
		t.Fatalf("ahead %v rows %d", cp.ahead, cp.rowsDone)
	}
}
