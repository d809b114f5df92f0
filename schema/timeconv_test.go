package schema

import (
	"encoding/binary"
	"testing"
	"time"
)

func TestTimestampValues(t *testing.T) {
	runConvCases(t, DefaultFormats(), []convCase{
		// DATETIMEFORMAT's default, %Y-%m-%d %H:%M:%S%z.
		{"timestamp", "2020-01-02 03:04:05+0000", "2020-01-02T03:04:05.000Z"},
		// Years before 1000 as cqlsh COPY TO writes them: unpadded.
		{"timestamp", "999-12-31 23:59:59.999+0000", "0999-12-31T23:59:59.999Z"},
		{"timestamp", "1-01-01 00:00:00.000+0000", "0001-01-01T00:00:00.000Z"},
		{"timestamp", "99-02-03 04:05:06+0000", "0099-02-03T04:05:06.000Z"},
		{"timestamp", "999-12-31", "0999-12-31T00:00:00.000Z"},
		{"timestamp", "2020-01-02 03:04:05+0200", "2020-01-02T01:04:05.000Z"},
		{"timestamp", "2020-01-02 03:04:05-0130", "2020-01-02T04:34:05.000Z"},
		{"timestamp", "2020-01-02 03:04:05+02:00", "2020-01-02T01:04:05.000Z"},
		{"timestamp", "2020-01-02 03:04:05Z", "2020-01-02T03:04:05.000Z"},
		{"timestamp", "2020-1-2 3:4:5+0000", "2020-01-02T03:04:05.000Z"},
		// cqlsh COPY TO's output, %Y-%m-%d %H:%M:%S.%f%z.
		{"timestamp", "2020-01-02 03:04:05.123000+0000", "2020-01-02T03:04:05.123Z"},
		{"timestamp", "2020-01-02 03:04:05.123456+0000", "2020-01-02T03:04:05.123Z"},
		// CQL literal forms.
		{"timestamp", "2020-01-02", "2020-01-02T00:00:00.000Z"},
		{"timestamp", "2020-01-02Z", "2020-01-02T00:00:00.000Z"},
		{"timestamp", "2020-01-02+01:00", "2020-01-01T23:00:00.000Z"},
		{"timestamp", "2020-01-02 03:04", "2020-01-02T03:04:00.000Z"},
		{"timestamp", "2020-01-02T03:04", "2020-01-02T03:04:00.000Z"},
		{"timestamp", "2020-01-02 03:04:05", "2020-01-02T03:04:05.000Z"},
		{"timestamp", "2020-01-02T03:04:05", "2020-01-02T03:04:05.000Z"},
		{"timestamp", "2020-01-02T03:04:05.1", "2020-01-02T03:04:05.100Z"},
		{"timestamp", "2020-01-02T03:04:05.12", "2020-01-02T03:04:05.120Z"},
		{"timestamp", "2020-01-02T03:04:05.999999999", "2020-01-02T03:04:05.999Z"},
		{"timestamp", "2020-01-02T03:04:05.123Z", "2020-01-02T03:04:05.123Z"},
		{"timestamp", "2020-01-02T03:04:05+01", "2020-01-02T02:04:05.000Z"},
		{"timestamp", "2020-01-02T03:04:05-01", "2020-01-02T04:04:05.000Z"},
		{"timestamp", "2020-01-02T03:04:05+0130", "2020-01-02T01:34:05.000Z"},
		{"timestamp", "2020-01-02 03:04+05:30", "2020-01-01T21:34:00.000Z"},
		{"timestamp", "2020-02-29 00:00:00", "2020-02-29T00:00:00.000Z"},
		{"timestamp", "2020-01-02 03:04:05 +0100", "2020-01-02T02:04:05.000Z"},
		{"timestamp", "2020-01-02 03:04:05 UTC", "2020-01-02T03:04:05.000Z"},
		{"timestamp", "2020-01-02T03:04:05.5 GMT+02:00", "2020-01-02T01:04:05.500Z"},
		{"timestamp", "2020-01-02 03:04 Z", "2020-01-02T03:04:00.000Z"},
		{"timestamp", "2020-01-02 UTC-0130", "2020-01-02T01:30:00.000Z"},
		{"timestamp", "0001-01-01 00:00:00+0000", "0001-01-01T00:00:00.000Z"},
		{"timestamp", "9999-12-31 23:59:59.999+0000", "9999-12-31T23:59:59.999Z"},
		{"timestamp", "1969-12-31 23:59:59.9999", "1969-12-31T23:59:59.999Z"},
		// Integer milliseconds since the epoch.
		{"timestamp", "0", "1970-01-01T00:00:00.000Z"},
		{"timestamp", "1577934245123", "2020-01-02T03:04:05.123Z"},
		{"timestamp", "-1", "1969-12-31T23:59:59.999Z"},
		{"timestamp", "2020", "1970-01-01T00:00:02.020Z"},
	})
	runErrCases(t, DefaultFormats(), []errCase{
		{"timestamp", "2020-02-30", `invalid timestamp "2020-02-30": day 30 out of range for 2020-02`},
		{"timestamp", "2019-02-29 00:00:00", `invalid timestamp "2019-02-29 00:00:00": day 29 out of range for 2019-02`},
		{"timestamp", "2020-13-01", `invalid timestamp "2020-13-01": month 13 out of range [1, 12]`},
		{"timestamp", "2020-01-01 24:00:00", `invalid timestamp "2020-01-01 24:00:00": time 24:00:00 out of range`},
		{"timestamp", "0000-01-01", `invalid timestamp "0000-01-01": year 0 out of range [1, 9999]`},
		{"timestamp", "2020-01-02 03:04:05  +0000", `invalid timestamp "2020-01-02 03:04:05  +0000": matches neither DATETIMEFORMAT "%Y-%m-%d %H:%M:%S%z", nor a CQL timestamp (yyyy-mm-dd[( |T)hh:mm[:ss[.fff]]][[ ]Z|±hh[:mm]| UTC]), nor integer milliseconds`},
		{"timestamp", "2020-01-02T03:04:05+25:00", `invalid timestamp "2020-01-02T03:04:05+25:00": matches neither DATETIMEFORMAT "%Y-%m-%d %H:%M:%S%z", nor a CQL timestamp (yyyy-mm-dd[( |T)hh:mm[:ss[.fff]]][[ ]Z|±hh[:mm]| UTC]), nor integer milliseconds`},
		{"timestamp", "yesterday", `invalid timestamp "yesterday": matches neither DATETIMEFORMAT "%Y-%m-%d %H:%M:%S%z", nor a CQL timestamp (yyyy-mm-dd[( |T)hh:mm[:ss[.fff]]][[ ]Z|±hh[:mm]| UTC]), nor integer milliseconds`},
		{"timestamp", "", `invalid timestamp "": matches neither DATETIMEFORMAT "%Y-%m-%d %H:%M:%S%z", nor a CQL timestamp (yyyy-mm-dd[( |T)hh:mm[:ss[.fff]]][[ ]Z|±hh[:mm]| UTC]), nor integer milliseconds`},
		{"timestamp", "99999999999999999999", `invalid timestamp "99999999999999999999": matches neither DATETIMEFORMAT "%Y-%m-%d %H:%M:%S%z", nor a CQL timestamp (yyyy-mm-dd[( |T)hh:mm[:ss[.fff]]][[ ]Z|±hh[:mm]| UTC]), nor integer milliseconds`},
	})
}

func TestTimestampFormatsAndZones(t *testing.T) {
	us := DefaultFormats()
	us.DateTimeFormat = "%m/%d/%Y %I:%M %p"
	runConvCases(t, us, []convCase{
		{"timestamp", "01/02/2020 03:04 PM", "2020-01-02T15:04:00.000Z"},
		{"timestamp", "1/2/2020 12:00 am", "2020-01-02T00:00:00.000Z"},
		{"timestamp", "12/31/1999 12:30 PM", "1999-12-31T12:30:00.000Z"},
		// Still the CQL forms and integers.
		{"timestamp", "2020-01-02 03:04:05Z", "2020-01-02T03:04:05.000Z"},
		{"timestamp", "1000", "1970-01-01T00:00:01.000Z"},
	})
	names := DefaultFormats()
	names.DateTimeFormat = "%a, %d %b %Y %H:%M:%S %Z"
	runConvCases(t, names, []convCase{
		{"timestamp", "Thu, 02 Jan 2020 03:04:05 GMT", "2020-01-02T03:04:05.000Z"},
		{"timestamp", "thursday, 2 january 2020 03:04:05 UTC", "2020-01-02T03:04:05.000Z"},
	})
	yday := DefaultFormats()
	yday.DateTimeFormat = "%Y.%j %H%M%S.%f%z"
	runConvCases(t, yday, []convCase{
		{"timestamp", "2020.060 010203.5-0100", "2020-02-29T02:02:03.500Z"},
		{"timestamp", "1970.001 000000.0+0000", "1970-01-01T00:00:00.000Z"},
	})
	// A user's %Y takes four digits, as strptime's: a two-digit year is
	// a mistake, not the first century. cqlsh's default format still
	// takes the unpadded years its COPY TO writes before 1000.
	dmy := DefaultFormats()
	dmy.DateTimeFormat = "%d/%m/%Y %H:%M"
	const notTimestamp = `matches neither DATETIMEFORMAT "%d/%m/%Y %H:%M", nor a CQL timestamp (yyyy-mm-dd[( |T)hh:mm[:ss[.fff]]][[ ]Z|±hh[:mm]| UTC]), nor integer milliseconds`
	runConvCases(t, dmy, []convCase{
		{"timestamp", "02/01/2024 03:04", "2024-01-02T03:04:00.000Z"},
		{"timestamp", "02/01/0999 03:04", "0999-01-02T03:04:00.000Z"},
	})
	runErrCases(t, dmy, []errCase{
		{"timestamp", "02/01/24 03:04", `invalid timestamp "02/01/24 03:04": ` + notTimestamp},
		{"timestamp", "02/01/999 03:04", `invalid timestamp "02/01/999 03:04": ` + notTimestamp},
	})
	runConvCases(t, DefaultFormats(), []convCase{
		{"timestamp", "999-12-31 23:59:59+0000", "0999-12-31T23:59:59.000Z"},
	})
	short := DefaultFormats()
	short.DateTimeFormat = "%y%m%d"
	runConvCases(t, short, []convCase{
		{"timestamp", "690101", "1969-01-01T00:00:00.000Z"},
		{"timestamp", "680101", "2068-01-01T00:00:00.000Z"},
	})

	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatalf("time zone database: %v", err)
	}
	inParis := DefaultFormats()
	inParis.TimeZone = paris
	runConvCases(t, inParis, []convCase{
		{"timestamp", "2020-01-02 03:04:05", "2020-01-02T02:04:05.000Z"}, // CET
		{"timestamp", "2020-07-02 03:04:05", "2020-07-02T01:04:05.000Z"}, // CEST
		{"timestamp", "2020-07-02 03:04:05.250", "2020-07-02T01:04:05.250Z"},
		{"timestamp", "2020-07-02 03:04:05+0000", "2020-07-02T03:04:05.000Z"}, // explicit zone wins
		{"timestamp", "2020-07-02", "2020-07-01T22:00:00.000Z"},
		{"timestamp", "0", "1970-01-01T00:00:00.000Z"}, // epoch milliseconds have no zone
	})
}

func TestFormatsValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Formats)
		want string
	}{
		{"default", func(*Formats) {}, ""},
		{"no decimal sep", func(f *Formats) { f.DecimalSep = "" }, "DECIMALSEP must not be empty"},
		{"digit thousands", func(f *Formats) { f.ThousandsSep = "0" }, `THOUSANDSSEP "0" must not contain digits, signs or exponent letters`},
		{"same seps", func(f *Formats) { f.ThousandsSep = "." }, `DECIMALSEP and THOUSANDSSEP are both "."`},
		{"bool empty", func(f *Formats) { f.BoolStyle[1] = "" }, `BOOLSTYLE "True","": both words must be non-empty`},
		{"bool same", func(f *Formats) { f.BoolStyle = [2]string{"Y", "y"} }, `BOOLSTYLE "Y","y": the true and false words must differ`},
		{"bad directive", func(f *Formats) { f.DateTimeFormat = "%Y %Q" }, `DATETIMEFORMAT "%Y %Q": unsupported directive %Q (supported: %Y %y %m %d %H %I %M %S %f %z %Z %p %b %B %a %A %j %%)`},
		{"two problems", func(f *Formats) { f.DecimalSep = ""; f.DateTimeFormat = "" }, "DECIMALSEP must not be empty\nDATETIMEFORMAT \"\": empty format"},
	}
	for _, tc := range cases {
		f := DefaultFormats()
		tc.edit(&f)
		err := f.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: Validate() = %q, want %q", tc.name, got, tc.want)
		}
		if _, err := NewConverter(mustType(t, "int"), f); (err != nil) != (tc.want != "") {
			t.Errorf("%s: NewConverter error = %v, want an error: %v", tc.name, err, tc.want != "")
		}
	}
}

func TestParseBoolStyle(t *testing.T) {
	got, err := ParseBoolStyle("yes, no")
	if err != nil || got != [2]string{"yes", "no"} {
		t.Errorf(`ParseBoolStyle("yes, no") = %q, %v`, got, err)
	}
	if _, err := ParseBoolStyle("yes"); err == nil {
		t.Error(`ParseBoolStyle("yes"): no error`)
	}
}

func TestDateTimeDuration(t *testing.T) {
	runConvCases(t, DefaultFormats(), []convCase{
		{"date", "2020-01-02", "2020-01-02"},
		{"date", "1970-01-01", "1970-01-01"},
		{"date", "1969-12-31", "1969-12-31"},
		{"date", "0001-01-01", "0001-01-01"},
		{"date", "9999-12-31", "9999-12-31"},
		{"date", "2020-2-9", "2020-02-09"},
		{"date", "+2020-01-02", "2020-01-02"},
		// An integer is Cassandra's unsigned day number: 2^31 is the epoch.
		{"date", "2147483648", "1970-01-01"},
		{"date", "2147501910", "2020-01-01"},
		{"date", "2147483647", "1969-12-31"},
		{"date", "2146764486", "0001-01-01"},
		{"date", "+2147483648", "1970-01-01"},
		{"date", "99999999", "-5603850-03-04"},  // eight digits, but no yyyymmdd
		{"date", "020200102", "-5822335-06-22"}, // a leading zero makes it a day number
		{"time", "00:00:00", "0s"},
		{"time", "01:02:03", "1h2m3s"},
		{"time", "1:2:3", "1h2m3s"},
		{"time", "23:59:59.999999999", "23h59m59.999999999s"},
		{"time", "12:00:00.5", "12h0m0.5s"},
		{"time", "3723000000000", "1h2m3s"},
		{"time", "0", "0s"},
		{"duration", "1h30m", "{0 0 5400000000000}"},
		{"duration", "1y2mo3w4d5h6m7s8ms9us10ns", "{14 25 18367008009010}"},
		{"duration", "1Y2MO", "{14 0 0}"},
		{"duration", "5µs", "{0 0 5000}"},
		{"duration", "-2d", "{0 -2 0}"},
		{"duration", "-1mo2d3h", "{-1 -2 -10800000000000}"},
		{"duration", "0s", "{0 0 0}"},
		{"duration", "P1DT2H", "{0 1 7200000000000}"},
		{"duration", "P1Y2M3DT4H5M6S", "{14 3 14706000000000}"},
		{"duration", "PT90M", "{0 0 5400000000000}"},
		{"duration", "P2W", "{0 14 0}"},
		{"duration", "-P2W", "{0 -14 0}"},
		{"duration", "P0001-02-03T04:05:06", "{14 3 14706000000000}"},
		{"duration", "-P0001-02-03T04:05:06", "{-14 -3 -14706000000000}"},
	})
	runErrCases(t, DefaultFormats(), []errCase{
		{"date", "2020-02-30", `invalid date "2020-02-30": no such date 2020-02-30`},
		{"date", "2020-01", `invalid date "2020-01": not a date (yyyy-mm-dd, or a day number on which 2147483648 is 1970-01-01)`},
		{"date", "2020-01-02 00:00", `invalid date "2020-01-02 00:00": not a date (yyyy-mm-dd, or a day number on which 2147483648 is 1970-01-01)`},
		{"date", "", `invalid date "": not a date (yyyy-mm-dd, or a day number on which 2147483648 is 1970-01-01)`},
		{"date", "4294967296", `date 4294967296 out of range [0, 4294967295]`},
		{"date", "-1", `date -1 out of range [0, 4294967295]`},
		// Eight digits that read as yyyymmdd: Cassandra would store a day
		// 5.8 million years ago, cqlsh refuses them.
		{"date", "20200102", `invalid date "20200102": reads as 2020-01-02 without dashes: write dates as yyyy-mm-dd (an integer date is a day number on which 2147483648 is 1970-01-01, as Cassandra reads it)`},
		{"date", "19700101", `invalid date "19700101": reads as 1970-01-01 without dashes: write dates as yyyy-mm-dd (an integer date is a day number on which 2147483648 is 1970-01-01, as Cassandra reads it)`},
		{"time", "24:00:00", `invalid time "24:00:00": time 24:00:00 out of range`},
		{"time", "12:00", `invalid time "12:00": not a time (hh:mm:ss[.fffffffff] or nanoseconds since midnight)`},
		{"time", "12:00:00.1234567890", `invalid time "12:00:00.1234567890": not a time (hh:mm:ss[.fffffffff] or nanoseconds since midnight)`},
		{"time", "86400000000000", `time 86400000000000 out of range [0, 86399999999999]`},
		{"time", "-1", `time -1 out of range [0, 86399999999999]`},
		{"duration", "", `invalid duration "": not a duration (like 1h30m, P1DT2H, P2W or P0001-02-03T04:05:06)`},
		{"duration", "1h30", `invalid duration "1h30": not a duration (like 1h30m, P1DT2H, P2W or P0001-02-03T04:05:06)`},
		{"duration", "1m1h", `invalid duration "1m1h": unit h repeated or after a smaller unit`},
		{"duration", "1h1h", `invalid duration "1h1h": unit h repeated or after a smaller unit`},
		{"duration", "1x", `invalid duration "1x": not a duration (like 1h30m, P1DT2H, P2W or P0001-02-03T04:05:06)`},
		{"duration", "P", `invalid duration "P": not a duration (like 1h30m, P1DT2H, P2W or P0001-02-03T04:05:06)`},
		{"duration", "PT", `invalid duration "PT": not a duration (like 1h30m, P1DT2H, P2W or P0001-02-03T04:05:06)`},
		{"duration", "P1H", `invalid duration "P1H": not a duration (like 1h30m, P1DT2H, P2W or P0001-02-03T04:05:06)`},
		{"duration", "P1D1Y", `invalid duration "P1D1Y": not a duration (like 1h30m, P1DT2H, P2W or P0001-02-03T04:05:06)`},
		{"duration", "3000000000mo", `invalid duration "3000000000mo": duration component out of range`},
		{"duration", "99999999999999999999ns", `invalid duration "99999999999999999999ns": duration component out of range`},
	})
}

// Values with a '.' skip a layout with no '.' literal (timestamps with
// milliseconds against cqlsh's default DATETIMEFORMAT): that is only
// right if such a layout can never match them. Each value here matches
// its layout; a '.' put anywhere into it must make the match fail.
func TestLayoutWithoutDotNeverMatchesDot(t *testing.T) {
	tests := []struct{ layout, value string }{
		{DefaultDateTimeFormat, "2024-06-12 03:32:25+0000"},
		{DefaultDateTimeFormat, "2024-06-12 03:32:25-01:30"},
		{DefaultDateTimeFormat, "2024-06-12 03:32:25Z"},
		{"%d/%m/%y %I:%M %p", "12/06/24 03:32 PM"},
		{"%a %b %d %H:%M:%S %Z %Y", "Wed Jun 12 03:32:25 UTC 2024"},
		{"%Y%j", "2024164"},
	}
	for _, tt := range tests {
		l, err := compileStrftime(tt.layout)
		if err != nil {
			t.Fatal(err)
		}
		if l.takesDot() {
			t.Fatalf("%q: takesDot, but it has no '.'", tt.layout)
		}
		if _, ok := l.parse([]byte(tt.value)); !ok {
			t.Fatalf("%q does not match %q", tt.layout, tt.value)
		}
		for i := 0; i <= len(tt.value); i++ {
			for _, v := range []string{tt.value[:i] + "." + tt.value[i:], tt.value[:i] + ".123" + tt.value[i:]} {
				if _, ok := l.parse([]byte(v)); ok {
					t.Errorf("%q matches %q, which has a '.'", tt.layout, v)
				}
			}
		}
	}
	withDot, err := compileStrftime("%Y-%m-%d %H:%M:%S.%f")
	if err != nil {
		t.Fatal(err)
	}
	if !withDot.takesDot() {
		t.Error("a layout with a '.' literal does not takesDot")
	}
	// And the converter still takes a dotted value through such a layout.
	f := DefaultFormats()
	f.DateTimeFormat = "%d.%m.%Y %H:%M"
	conv, err := NewConverter(mustType(t, "timestamp"), f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := conv(nil, []byte("12.06.2024 03:32"))
	if err != nil {
		t.Fatalf("dotted DATETIMEFORMAT: %v", err)
	}
	if want := time.Date(2024, 6, 12, 3, 32, 0, 0, time.UTC).UnixMilli(); int64(binary.BigEndian.Uint64(got)) != want {
		t.Errorf("12.06.2024 03:32 -> %d ms, want %d", int64(binary.BigEndian.Uint64(got)), want)
	}
}
