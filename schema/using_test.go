package schema

import (
	"strings"
	"testing"
	"time"
)

func TestWriteTimeParser(t *testing.T) {
	f := DefaultFormats()
	p, err := NewWriteTimeParser(f)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 7, 10, 30, 0, 123_000_000, time.UTC)
	tests := []struct {
		in   string
		want int64
		ok   bool
		err  string
	}{
		{"", 0, false, ""},
		{"1765103400123456", 1765103400123456, true, ""}, // writetime() as DSBulk exports it
		{"0", 0, true, ""},
		{"-5", -5, true, ""},
		{"+42", 42, true, ""},
		{"2026-12-07 10:30:00.123+0000", at.UnixMicro(), true, ""},
		{"2026-12-07T10:30:00.123Z", at.UnixMicro(), true, ""},
		{"-9223372036854775808", 0, false, "out of range"},
		{"99999999999999999999", 0, false, "out of range"},
		{"yesterday", 0, false, "neither microseconds since the epoch nor a timestamp"},
		{"1.5", 0, false, "neither microseconds"},
	}
	for _, tc := range tests {
		got, ok, err := p.Parse([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "write time") {
				t.Errorf("Parse(%q) = %d, %v, %v; want an error with %q", tc.in, got, ok, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want || ok != tc.ok {
			t.Errorf("Parse(%q) = %d, %v, %v; want %d, %v", tc.in, got, ok, err, tc.want, tc.ok)
		}
	}
}

func TestParseTTL(t *testing.T) {
	tests := []struct {
		in   string
		want int32
		ok   bool
		err  string
	}{
		{"", 0, false, ""},
		{"0", 0, true, ""},
		{"86400", 86400, true, ""},
		{"630720000", MaxTTL, true, ""},
		{"630720001", 0, false, "larger than the largest"},
		{"99999999999999999999", 0, false, "larger than the largest"},
		{"-1", 0, false, "negative"},
		{"1.5", 0, false, "not a whole number"},
		{"1d", 0, false, "not a whole number"},
	}
	for _, tc := range tests {
		got, ok, err := ParseTTL([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseTTL(%q) = %d, %v, %v; want an error with %q", tc.in, got, ok, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want || ok != tc.ok {
			t.Errorf("ParseTTL(%q) = %d, %v, %v; want %d, %v", tc.in, got, ok, err, tc.want, tc.ok)
		}
	}
}
