package runlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestSentJournalGroupCommit: marks return only after a sync, concurrent
// marks share syncs, everything written ends up synced, and what was
// marked reads back.
func TestSentJournalGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ckpt.sent")
	j := NewJournal(path)
	var syncs atomic.Int64
	var mu sync.Mutex
	durable := int64(0) // file size at the start of the last finished sync
	j.sync = func(f *os.File) error {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		syncs.Add(1)
		err = f.Sync()
		mu.Lock()
		durable = max(durable, st.Size())
		mu.Unlock()
		return err
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if err := j.Mark(int64(w), []int32{int32(i)}); err != nil {
					t.Error(err)
					return
				}
				// Returned: a sync that began after this write is done.
				// The size is read after what is durable: other marks may
				// write and sync in between, and the file only grows.
				mu.Lock()
				covered := durable
				mu.Unlock()
				st, _ := os.Stat(path)
				if covered == 0 || covered > st.Size() {
					t.Errorf("mark returned with %d bytes synced of %d", covered, st.Size())
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if durable != st.Size() {
		t.Fatalf("synced %d of %d bytes", durable, st.Size())
	}
	if n := syncs.Load(); n > 400 || n < 1 {
		t.Fatalf("%d syncs for 400 marks", n)
	}
	js, size, err := readSentJournal(path)
	sent := js.Sent
	if err != nil || size != st.Size() {
		t.Fatalf("read %d bytes of %d: %v", size, st.Size(), err)
	}
	for w := range 8 {
		if len(sent[int64(w)]) != 50 {
			t.Fatalf("chunk %d: %d records read back, want 50", w, len(sent[int64(w)]))
		}
	}
	t.Logf("%d syncs for 400 marks", syncs.Load())
}

func TestSentJournalSyncFailure(t *testing.T) {
	j := NewJournal(filepath.Join(t.TempDir(), "ckpt.sent"))
	boom := errors.New("injected")
	j.sync = func(*os.File) error { return boom }
	if err := j.Mark(1, []int32{2}); !errors.Is(err, boom) {
		t.Fatalf("mark with a failing sync: %v", err)
	}
	if err := j.Mark(1, []int32{3}); !errors.Is(err, boom) {
		t.Fatalf("a later mark: %v, want the sticky error", err)
	}
}

// TestSentJournalAcks: acknowledgements read back, and a torn last line,
// which a crash can leave, is dropped rather than misread.
func TestSentJournalAcks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ckpt.sent")
	j := NewJournal(path)
	if err := j.Mark(4, []int32{1, 2, 45}); err != nil {
		t.Fatal(err)
	}
	j.Ack(4, []int32{1, 45})
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	js, _, err := readSentJournal(path)
	if err != nil || fmt.Sprint(js.Sent[4]) != "[1 2 45]" || fmt.Sprint(js.Acked[4]) != "[1 45]" {
		t.Fatalf("sent %v acked %v err %v", js.Sent, js.Acked, err)
	}
	// Torn: "a 4 2 45" cut after "a 4 2 4".
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("a 4 2 4")
	f.Close()
	js, _, _ = readSentJournal(path)
	if fmt.Sprint(js.Acked[4]) != "[1 45]" {
		t.Fatalf("a torn acknowledgement was read: %v", js.Acked[4])
	}

	// A resumed run cuts the torn line off before it appends: glued to
	// it, its own first line would be misread.
	j = NewJournal(path)
	if js, err = j.Reopen(); err != nil || fmt.Sprint(js.Acked[4]) != "[1 45]" {
		t.Fatalf("reopen: acked %v, %v", js.Acked, err)
	}
	if err := j.Mark(5, []int32{0, 7}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	js, _, err = readSentJournal(path)
	if err != nil || fmt.Sprint(js.Sent[5]) != "[0 7]" || fmt.Sprint(js.Acked[4]) != "[1 45]" {
		t.Fatalf("after the resumed run's mark: sent %v acked %v (%v)", js.Sent, js.Acked, err)
	}
}

// TestSentJournalRefusals: a row's last send or refusal decides: refused
// and not sent again, it was never applied; sent again after a refusal,
// it may have been.
func TestSentJournalRefusals(t *testing.T) {
	tests := []struct {
		name, journal     string
		wantSent, wantRef string
	}{
		{"sent", "3 1 2\n", "[1 2]", "[]"},
		{"refused", "3 1 2\nr 3 1 2\n", "[]", "[1 2]"},
		{"refused, sent again", "3 1 2\nr 3 1 2\n3 1 2\n", "[1 2]", "[]"},
		{"refused twice", "3 1 2\nr 3 1 2\n3 1 2\nr 3 1 2\n", "[]", "[1 2]"},
		{"one half refused", "3 1 2\nr 3 2\n", "[1]", "[2]"},
		{"a torn refusal", "3 1 2\nr 3 1", "[1 2]", "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ckpt.sent")
			if err := os.WriteFile(path, []byte(tt.journal), 0o644); err != nil {
				t.Fatal(err)
			}
			js, _, err := readSentJournal(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(js.Sent[3]); got != tt.wantSent {
				t.Errorf("sent %s, want %s", got, tt.wantSent)
			}
			if got := fmt.Sprint(js.Refused[3]); got != tt.wantRef {
				t.Errorf("refused %s, want %s", got, tt.wantRef)
			}
		})
	}
}
