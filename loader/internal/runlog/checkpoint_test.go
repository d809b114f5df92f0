package runlog

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestDecideResume(t *testing.T) {
	dir := t.TempDir()
	ids := []Input{{Path: "/data/users.csv", Size: 100, Hash: "aa"}}
	opts := map[string]string{"chunksize": "5000", "table": "ks.t"}
	write := func(complete bool, ids []Input, opts map[string]string) string {
		p := filepath.Join(dir, t.Name()+strconv.FormatBool(complete)+ids[0].Hash+opts["chunksize"])
		if err := (&Checkpoint{Version: Version, Inputs: ids, Options: opts, Complete: complete}).Save(p, (*os.File).Sync); err != nil {
			t.Fatal(err)
		}
		return p
	}
	other := []Input{{Path: "/data/users.csv", Size: 100, Hash: "bb"}}
	ids2 := []Input{{Path: "/data/a.csv", Size: 100, Hash: "a2"}, {Path: "/data/b.csv", Size: 100, Hash: "b2"}}
	writeSettled := func(ids []Input, opts map[string]string) string {
		p := filepath.Join(dir, t.Name()+"settled"+ids[0].Hash+opts["chunksize"])
		f := &Checkpoint{Version: Version, Inputs: ids, Options: opts, Settled: [][2]int64{{0, 3}}}
		if err := f.Save(p, (*os.File).Sync); err != nil {
			t.Fatal(err)
		}
		return p
	}
	otherOpts := map[string]string{"chunksize": "100", "table": "ks.t"}
	// A run stopped before any chunk settled, having sent rows of chunks
	// below sentBelow (nil: a checkpoint older than that record).
	writeUnsettledOpts := func(name string, ids []Input, opts map[string]string, sentBelow *int64) string {
		p := filepath.Join(dir, t.Name()+"unsettled"+name)
		f := &Checkpoint{Version: Version, Inputs: ids, Options: opts, SentBelow: sentBelow}
		if err := f.Save(p, (*os.File).Sync); err != nil {
			t.Fatal(err)
		}
		return p
	}
	writeUnsettled := func(name string, ids []Input, sentBelow *int64) string {
		return writeUnsettledOpts(name, ids, opts, sentBelow)
	}
	zero, some := int64(0), int64(1024)
	// Files of the user's given as --resume by mistake.
	notOurs := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		path    string
		want    Action
		wantErr string
	}{
		{"no checkpoint", filepath.Join(dir, "none"), StartFresh, ""},
		{"completed, same input", write(true, ids, opts), NothingToDo, ""},
		{"completed, new input (nightly)", write(true, other, opts), StartFresh, ""},
		{"completed, new input, other options", write(true, other, otherOpts), StartFresh, ""},
		{"completed, same input, other options", write(true, ids, otherOpts), 0, `a finished load of this same input with other options (option chunksize was "100", now "5000")`},
		{"completed, the same files in another order", write(true, []Input{ids2[1], ids2[0]}, opts), NothingToDo, ""},
		{"unfinished, the same files in another order", writeSettled([]Input{ids2[1], ids2[0]}, opts), 0, "input 1 was /data/b.csv, now /data/a.csv"},
		{"unfinished, same input", writeSettled(ids, opts), Resume, ""},
		{"unfinished, other content", writeSettled(other, opts), 0, "/data/users.csv has other content"},
		{"unfinished, other options", writeSettled(ids, otherOpts), 0, `option chunksize was "100", now "5000"`},
		{"stopped before any progress, other input", write(false, other, opts), StartFresh, ""},
		{"stopped before sending, same input", writeUnsettled("0", ids, &zero), StartFresh, ""},
		{"stopped after sending, before settling, same input", writeUnsettled("1024", ids, &some), Resume, ""},
		{"stopped after sending, before settling, other input", writeUnsettled("other", other, &some), StartFresh, ""},
		{"stopped after sending, before settling, same input, other options", writeUnsettledOpts("otheropts", ids, otherOpts, &some), 0, `records an unfinished run of other input or options (option chunksize was "100", now "5000")`},
		{"stopped before sending, same input, other options", writeUnsettledOpts("otheropts0", ids, otherOpts, &zero), StartFresh, ""},
		{"an older checkpoint stopped before settling, same input", writeUnsettled("old", ids, nil), Resume, ""},
		{"a CSV file", notOurs("users.csv", "1,a\n"), 0, "is not a cqlload checkpoint"},
		{"another program's JSON", notOurs("summary.json", `{"rows_read": 3}`), 0, "is not a cqlload checkpoint (no format version): give --resume the path of a checkpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := ids
			if strings.Contains(tt.name, "the same files") {
				now = ids2
			}
			got, _, err := Decide(tt.path, now, opts)
			if tt.wantErr != "" {
				var re *RefusedError
				if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want a RefusedError saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("action %v err %v, want %v", got, err, tt.want)
			}
		})
	}
}

func TestBitmapRoundTrip(t *testing.T) {
	b := make(Bitmap, 3)
	for _, i := range []int{0, 5, 63, 64, 130} {
		b.Set(i)
	}
	back, err := ParseBitmap(b.String())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 192 {
		if back.Has(i) != b.Has(i) {
			t.Fatalf("bit %d: %v after a round trip, %v before", i, back.Has(i), b.Has(i))
		}
	}
}

// TestWriteCheckpointFails: a checkpoint that cannot be written whole (a
// full disk fails the write or the sync) leaves the previous one as it
// was, and no temporary file beside it.
func TestWriteCheckpointFails(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ckpt")
	old := &Checkpoint{Version: Version, RowsDone: 1000}
	if err := old.Save(p, (*os.File).Sync); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	err = (&Checkpoint{Version: Version, RowsDone: 2000}).Save(p, func(*os.File) error { return full })
	if !errors.Is(err, full) {
		t.Fatalf("got %v, want the sync's error", err)
	}
	if after, err := os.ReadFile(p); err != nil || string(after) != string(before) {
		t.Errorf("the previous checkpoint changed (%v):\n%s", err, after)
	}
	if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".tmp*")); len(tmps) > 0 {
		t.Errorf("the temporary checkpoint is left: %q", tmps)
	}
}

// TestDescribeDiffSplit: a split's checkpoint given a run without
// --split names the split, not also the plan version only splits record.
func TestDescribeDiffSplit(t *testing.T) {
	was := map[string]string{"split": "0/2", "splitplan": "2", "table": "ks.t"}
	now := map[string]string{"split": "0/1", "table": "ks.t"}
	if got, want := Diff(nil, nil, was, now), `option split was "0/2", now "0/1"`; got != want {
		t.Errorf("split checkpoint, run without --split: %q, want %q", got, want)
	}
	now = map[string]string{"split": "0/2", "splitplan": "3", "table": "ks.t"}
	if got, want := Diff(nil, nil, was, now), `option splitplan was "2", now "3"`; got != want {
		t.Errorf("another plan version: %q, want %q", got, want)
	}
}
