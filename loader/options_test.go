package loader

import (
	"strconv"
	"strings"
	"testing"
)

// validOptions returns defaults that pass Validate but for what a test
// sets.
func validOptions() Options {
	o := DefaultOptions()
	o.Hosts = []string{"127.0.0.1"}
	o.Keyspace, o.Table = "ks", "t"
	o.Files = []string{"x.csv"}
	return o
}

// TestBatchSizesSettle: one explicit batch size moves the other's
// default, as cqlsh users expect; only two explicit, contradictory values
// are an error.
func TestBatchSizesSettle(t *testing.T) {
	tests := []struct {
		name     string
		set      [][2]string
		min, max int
		wantErr  string
	}{
		{"defaults", nil, 10, 20, ""},
		{"MAXBATCHSIZE 1 alone", [][2]string{{"MAXBATCHSIZE", "1"}}, 1, 1, ""},
		{"MAXBATCHSIZE 5 alone", [][2]string{{"maxbatchsize", "5"}}, 5, 5, ""},
		{"MAXBATCHSIZE 15 alone", [][2]string{{"MAXBATCHSIZE", "15"}}, 10, 15, ""},
		{"MINBATCHSIZE 50 alone", [][2]string{{"MINBATCHSIZE", "50"}}, 50, 50, ""},
		{"both, consistent", [][2]string{{"MINBATCHSIZE", "2"}, {"MAXBATCHSIZE", "3"}}, 2, 3, ""},
		{"max then min, contradictory", [][2]string{{"MAXBATCHSIZE", "1"}, {"MINBATCHSIZE", "5"}}, 5, 1, "MINBATCHSIZE (5) is larger than MAXBATCHSIZE (1)"},
		{"min then max, contradictory", [][2]string{{"MINBATCHSIZE", "5"}, {"MAXBATCHSIZE", "1"}}, 5, 1, "MINBATCHSIZE (5) is larger than MAXBATCHSIZE (1)"},
		{"explicit default min", [][2]string{{"MINBATCHSIZE", "10"}, {"MAXBATCHSIZE", "1"}}, 10, 1, "MINBATCHSIZE (10) is larger than MAXBATCHSIZE (1)"},
		{"later value wins", [][2]string{{"MAXBATCHSIZE", "1"}, {"MAXBATCHSIZE", "30"}}, 10, 30, ""},
		{"MAXBATCHSIZE 0", [][2]string{{"MAXBATCHSIZE", "0"}}, 10, 0, "MAXBATCHSIZE must be at least 1"},
	}
	for _, tt := range tests {
		o := validOptions()
		for _, kv := range tt.set {
			if err := o.SetOption(kv[0], kv[1]); err != nil {
				t.Fatalf("%s: SetOption(%s, %s): %v", tt.name, kv[0], kv[1], err)
			}
		}
		err := o.Validate()
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: Validate: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: Validate = %v, want %q", tt.name, err, tt.wantErr)
		}
		if o.MinBatchSize != tt.min || o.MaxBatchSize != tt.max {
			t.Errorf("%s: MINBATCHSIZE %d, MAXBATCHSIZE %d; want %d, %d", tt.name, o.MinBatchSize, o.MaxBatchSize, tt.min, tt.max)
		}
	}
}

// TestBatchSizesAsFields: a library caller that sets the fields directly
// gets the same settling when the other one is left at its default.
func TestBatchSizesAsFields(t *testing.T) {
	o := validOptions()
	o.MaxBatchSize = 1
	if err := o.Validate(); err != nil || o.MinBatchSize != 1 {
		t.Errorf("MaxBatchSize 1: Validate %v, MinBatchSize %d; want nil, 1", err, o.MinBatchSize)
	}
	o = validOptions()
	o.MinBatchSize, o.MaxBatchSize = 5, 1
	if err := o.Validate(); err == nil {
		t.Errorf("MinBatchSize 5, MaxBatchSize 1: Validate passed")
	}
}

func TestExplicit(t *testing.T) {
	o := DefaultOptions()
	if o.Explicit("MAXBATCHSIZE") {
		t.Errorf("a default counts as explicit")
	}
	for _, kv := range [][2]string{{"MAXBATCHSIZE", "3"}, {"WORKERS", "2"}, {"nullval", "-"}, {"REPORTFREQUENCY", "1"}} {
		if err := o.SetOption(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"MAXBATCHSIZE", "maxbatchsize", "max-batch-size", "NUMPROCESSES", "workers", "NULL", "reportfrequency"} {
		if !o.Explicit(n) {
			t.Errorf("Explicit(%s) = false", n)
		}
	}
	if o.Explicit("CHUNKSIZE") {
		t.Errorf("Explicit(CHUNKSIZE) = true")
	}
	if err := o.SetOption("CHUNKSIZE", "x"); err == nil || o.Explicit("CHUNKSIZE") {
		t.Errorf("a rejected value counts as explicit (err %v)", err)
	}
	if err := o.SetOption("BOOLSTYLE", "x"); err == nil || o.Explicit("BOOLSTYLE") {
		t.Errorf("a rejected BOOLSTYLE counts as explicit (err %v)", err)
	}
	c := o
	_ = c.SetOption("TTL", "5")
	if o.Explicit("TTL") {
		t.Errorf("a copy's SetOption reached the original")
	}
}

// TestCharEscapes: DELIMITER = '\t' (and '\\t', as shells pass it on)
// is a tab, as cqlsh users write it; likewise for QUOTE and ESCAPE.
func TestCharEscapes(t *testing.T) {
	tests := []struct {
		option, value string
		want          byte
		wantErr       bool
	}{
		{"DELIMITER", `\t`, '\t', false},
		{"DELIMITER", `\\t`, '\t', false},
		{"DELIMITER", "\t", '\t', false},
		{"DELIMITER", "|", '|', false},
		{"DELIMITER", `;`, ';', false},
		{"QUOTE", `\t`, '\t', false},
		{"QUOTE", `'`, '\'', false},
		{"ESCAPE", `\\`, '\\', false},
		{"ESCAPE", `\`, '\\', false},
		{"ESCAPE", `\t`, '\t', false},
		{"DELIMITER", `\x`, 0, true},
		{"DELIMITER", `ab`, 0, true},
		{"DELIMITER", `é`, 0, true},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		err := o.SetOption(tt.option, tt.value)
		if (err != nil) != tt.wantErr {
			t.Errorf("SetOption(%s, %q) error %v, want error %v", tt.option, tt.value, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		var got byte
		switch tt.option {
		case "DELIMITER":
			got = o.Dialect.Delimiter
		case "QUOTE":
			got = o.Dialect.Quote
		case "ESCAPE":
			got = o.Dialect.Escape
		}
		if got != tt.want {
			t.Errorf("SetOption(%s, %q) gave %q, want %q", tt.option, tt.value, got, tt.want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  string
	}{
		{"0", 0, ""},
		{" 4096 ", 4096, ""},
		{"-1", -1, ""},
		{"512B", 512, ""},
		{"64K", 64 << 10, ""},
		{"64k", 64 << 10, ""},
		{"64KiB", 64 << 10, ""},
		{"64Ki", 64 << 10, ""},
		{"64kB", 64000, ""},
		{"16MiB", 16 << 20, ""},
		{"16 MiB", 16 << 20, ""},
		{"16M", 16 << 20, ""},
		{"16mb", 16_000_000, ""},
		{"2G", 2 << 30, ""},
		{"2GB", 2_000_000_000, ""},
		{"1TiB", 1 << 40, ""},
		{"", 0, "not a number of bytes"},
		{"MiB", 0, "not a number of bytes"},
		{"1.5M", 0, "units"},
		{"16 MiBs", 0, "units"},
		{"16P", 0, "units"},
		{"0x10", 0, "units"},
		{"9223372036854775807K", 0, "too many bytes"},
	} {
		got, err := parseBytes(c.in)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("parseBytes(%q) = %d, %v; want %d", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("parseBytes(%q) = %d, %v; want an error saying %q", c.in, got, err, c.err)
		}
	}
	// Through the options: every byte option takes units, and an int
	// field refuses what does not fit it.
	o := DefaultOptions()
	for name, v := range map[string]string{"SPLITSIZE": "1GiB", "VERIFYBUFFER": "4MiB", "MAXRECORDBYTES": "32MiB", "MAXBATCHBYTES": "32KiB"} {
		if err := o.SetOption(name, v); err != nil {
			t.Fatalf("%s = %s: %v", name, v, err)
		}
	}
	if o.SplitSize != 1<<30 || o.VerifyBuffer != 4<<20 || o.Dialect.MaxRecordBytes != 32<<20 || o.MaxBatchBytes != 32<<10 {
		t.Errorf("got split size %d, verify buffer %d, max record %d, max batch %d", o.SplitSize, o.VerifyBuffer, o.Dialect.MaxRecordBytes, o.MaxBatchBytes)
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"0", "64K", "16 MiB", "2GB", "-1", "1TiB", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseBytes(s)
		if err != nil {
			return
		}
		// A plain integer reads as itself; with a unit, as that many
		// whole units.
		if p, perr := strconv.ParseInt(strings.TrimSpace(s), 10, 64); perr == nil && p != n {
			t.Fatalf("parseBytes(%q) = %d, want %d", s, n, p)
		}
	})
}
