package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// peakRSS runs cmd to its end and returns its peak resident set (KiB),
// polling /proc/PID/status for VmHWM. rusage's ru_maxrss cannot be used:
// a child started with Go's vfork-like clone carries this test
// process's high-water mark into its own at exec. VmHWM is a high-water
// mark, so a poll after the peak still sees it; the inputs here go on
// long enough after theirs.
func peakRSS(t *testing.T, cmd *exec.Cmd) (kib int64, out string) {
	t.Helper()
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(status); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					if f := strings.Fields(rest); len(f) == 2 {
						if n, err := strconv.ParseInt(f[0], 10, 64); err == nil && n > kib {
							kib = n
						}
					}
				}
			}
		}
		select {
		case <-done:
			return kib, buf.String()
		case <-tick.C:
		}
	}
}

// TestLineOfDelimiters: a record of 16 MiB of commas, the most
// --max-record-bytes lets through, is rejected as "N fields, expected
// 2" at no more memory than a 16 MiB record of one field: the fields a
// row cannot use are counted, not kept. Before, it took about 1.5 GB
// and a minute.
func TestLineOfDelimiters(t *testing.T) {
	sim := startSimProc(t)
	dir := t.TempDir()
	const after = 50_000 // rows after the long line: the run goes on past its peak
	write := func(name string, long byte) string {
		var b bytes.Buffer
		b.WriteString("0,first\n")
		b.Write(bytes.Repeat([]byte{long}, 16<<20-1))
		b.WriteByte('\n')
		for i := 1; i <= after; i++ {
			fmt.Fprintf(&b, "%d,v%d\n", i, i)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	peaks := map[byte]int64{}
	for _, long := range []byte{'x', ','} {
		file := write(fmt.Sprintf("long-%d.csv", long), long)
		errFile := filepath.Join(dir, fmt.Sprintf("long-%d.err", long))
		sum := filepath.Join(dir, fmt.Sprintf("long-%d.json", long))
		start := time.Now()
		cmd := sim.Cmd(context.Background(), t, "--progress", "none", "--table", "ks.t", "--err-file", errFile, "--summary-json", sum, file)
		kib, out := peakRSS(t, cmd)
		t.Logf("a 16 MiB line of %q: peak RSS %.1f MiB, %.2f s", long, float64(kib)/1024, time.Since(start).Seconds())
		if code := cmd.ProcessState.ExitCode(); code != exitRejected {
			t.Fatalf("line of %q: exit %d, want %d\n%s", long, code, exitRejected, out)
		}
		s := readSummary(t, sum)
		checkCounts(t, s, after+2, true)
		if s.RowsWritten != after+1 || s.RowsFailedParse != 1 {
			t.Errorf("line of %q: %d written, %d failed to parse; want %d and 1", long, s.RowsWritten, s.RowsFailedParse, after+1)
		}
		log, err := os.ReadFile(errFile + ".log")
		if err != nil {
			t.Fatal(err)
		}
		want := ":2:1: parse error: 1 fields, expected 2"
		if long == ',' {
			want = fmt.Sprintf(":2:3: parse error: %d fields, expected 2", 16<<20)
		}
		if !strings.Contains(string(log), want) {
			t.Errorf("line of %q: the log says\n%.300s\nwant %q", long, log, want)
		}
		if kib == 0 {
			t.Fatalf("no VmHWM read from /proc/%d/status", cmd.Process.Pid)
		}
		peaks[long] = kib
	}
	// The same bound for both, with room for run-to-run noise.
	if bound := peaks['x'] + peaks['x']/4 + 8<<10; peaks[','] > bound {
		t.Errorf("peak RSS with a line of commas %d KiB, with a line of one field %d KiB: want at most %d KiB", peaks[','], peaks['x'], bound)
	}
}

// TestEndlessRecord: an input that is one record of 32 MiB of zero
// bytes (128 MiB in make check; a gzip of 128 KiB; /dev/zero is the
// same, without end), over the default --max-record-bytes, is
// rejected alone, and neither the error file nor any temporary file
// grows past what is kept of it. Every file the process writes is
// bounded by RLIMIT_FSIZE (ulimit -f): a write past it fails. Before,
// the whole record went to $TMPDIR and then to the error file.
func TestEndlessRecord(t *testing.T) {
	sim := startSimProc(t)
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	fmt.Fprintf(zw, "1,one\n2,two\n")
	mib := 32
	if full {
		mib = 128
	}
	zeros := make([]byte, 1<<20)
	for range mib {
		if _, err := zw.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zfile := filepath.Join(dir, "zeros.csv.gz")
	if err := os.WriteFile(zfile, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	after := filepath.Join(dir, "after.csv")
	if err := os.WriteFile(after, []byte("3,three\n4,four\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	record := mib << 20
	const limitKiB = 8 << 10 // ulimit -f: 8 MiB a file
	tests := []struct {
		name   string
		args   []string
		kept   int    // bytes of the record in the error file
		reason string // in the log
	}{
		{"default: 1 MiB, no temporary file", nil, 1 << 20,
			fmt.Sprintf("(%d bytes; --max-record-bytes is 16777216); the error file has its first 1048576 bytes (--max-error-record-bytes)", record)},
		{"past --max-record-bytes: a temporary file of 2 MiB", []string{"--max-record-bytes", "1M", "--max-error-record-bytes", "2M"}, 2 << 20,
			fmt.Sprintf("(%d bytes; --max-record-bytes is 1048576); the error file has its first 2097152 bytes (--max-error-record-bytes)", record)},
		// Whole, the temporary file meets the limit: that record keeps
		// its first --max-record-bytes, says why, and the rest loads.
		{"whole: the temporary file fails", []string{"--max-record-bytes", "1M", "--max-error-record-bytes", "-1"}, 1 << 20,
			"the error file has only its first 1048576 bytes: line 3: keeping a record over the size limit in a temporary file: "},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := filepath.Join(dir, fmt.Sprintf("tmp%d", i))
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			errFile := filepath.Join(dir, fmt.Sprintf("run%d.err", i))
			sum := filepath.Join(dir, fmt.Sprintf("run%d.json", i))
			args := append([]string{"--progress", "none", "--table", "ks.t", "--err-file", errFile, "--summary-json", sum}, tt.args...)
			load := sim.Cmd(context.Background(), t, append(args, zfile, after)...)
			cmd := exec.Command("bash", append([]string{"-c", fmt.Sprintf(`ulimit -f %d && exec "$@"`, limitKiB), "bash"}, load.Args...)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			out, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != exitRejected {
				t.Fatalf("exit %d, want %d\n%s", code, exitRejected, out)
			}
			s := readSummary(t, sum)
			checkCounts(t, s, 5, true)
			if s.RowsWritten != 4 || s.RowsFailedParse != 1 {
				t.Errorf("%d written, %d failed to parse; want 4 and 1", s.RowsWritten, s.RowsFailedParse)
			}
			data, err := os.ReadFile(errFile)
			if err != nil {
				t.Fatal(err)
			}
			want := append(make([]byte, tt.kept), fmt.Sprintf("[cqlload cut this record here: %d of its %d bytes kept]\n", tt.kept, record)...)
			if !bytes.Equal(data, want) {
				t.Errorf("the error file holds %d bytes ending %q; want %d zero bytes and the marker", len(data), data[max(0, len(data)-80):], tt.kept)
			}
			log, err := os.ReadFile(errFile + ".log")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), "zeros.csv.gz:3:1: parse error: record longer than the record size limit") || !strings.Contains(string(log), tt.reason) {
				t.Errorf("the log says\n%s\nwant the record's reason with %q", log, tt.reason)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("files left in TMPDIR: %v", ents)
			}
		})
	}
}
