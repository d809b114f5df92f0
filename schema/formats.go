package schema

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Formats are cqlsh COPY FROM's value-format options.
type Formats struct {
	// DecimalSep is DECIMALSEP, "." by default: the separator of the
	// fractional part of float, double and decimal values.
	DecimalSep string
	// ThousandsSep is THOUSANDSSEP, "" (none) by default: a digit-group
	// separator removed from numbers before they are parsed.
	ThousandsSep string
	// BoolStyle is BOOLSTYLE, "True,False" by default: the true and false
	// words, compared case-insensitively.
	BoolStyle [2]string
	// DateTimeFormat is DATETIMEFORMAT in cqlsh's (Python's strptime)
	// syntax. Timestamps that do not match it are still accepted in every
	// CQL literal form and as integer milliseconds since the epoch.
	DateTimeFormat string
	// TimeZone applies to timestamps written without a zone; nil means UTC.
	TimeZone *time.Location
	// CqlshEscapes says text was written by cqlsh COPY TO, which escapes
	// text values beyond CSV quoting: a backslash is doubled and control
	// characters are written as \n, \r, \t or \xHH (Python's repr). With it
	// set, ascii and text values (also inside collections) are unescaped
	// back; unknown escapes are kept as written. Off by default, as in
	// cqlsh COPY FROM, which stores the escaped text; on is the only way to
	// load a COPY TO export's backslashes and line breaks unchanged.
	CqlshEscapes bool
	// NullMarker is NULL, the text of a null ("" by default). The loader
	// handles it for whole fields; converters use it inside tuples and
	// UDTs, where cqlsh COPY TO writes it for a null component.
	NullMarker string
}

// DefaultDateTimeFormat is cqlsh's default DATETIMEFORMAT.
const DefaultDateTimeFormat = "%Y-%m-%d %H:%M:%S%z"

// DefaultFormats gives cqlsh's defaults.
func DefaultFormats() Formats {
	return Formats{
		DecimalSep:     ".",
		ThousandsSep:   "",
		BoolStyle:      [2]string{"True", "False"},
		DateTimeFormat: DefaultDateTimeFormat,
		TimeZone:       time.UTC,
	}
}

// ParseBoolStyle parses a BOOLSTYLE option value such as "yes, no".
func ParseBoolStyle(s string) ([2]string, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return [2]string{}, fmt.Errorf("BOOLSTYLE %q: want two words separated by a comma, like \"True,False\"", s)
	}
	return [2]string{strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])}, nil
}

// Validate reports every problem with f at once.
func (f Formats) Validate() error {
	var errs []error
	if f.DecimalSep == "" {
		errs = append(errs, errors.New("DECIMALSEP must not be empty"))
	} else if strings.ContainsAny(f.DecimalSep, "0123456789+-eE") {
		errs = append(errs, fmt.Errorf("DECIMALSEP %q must not contain digits, signs or exponent letters", f.DecimalSep))
	}
	if strings.ContainsAny(f.ThousandsSep, "0123456789+-eE") {
		errs = append(errs, fmt.Errorf("THOUSANDSSEP %q must not contain digits, signs or exponent letters", f.ThousandsSep))
	}
	if f.ThousandsSep != "" && f.ThousandsSep == f.DecimalSep {
		errs = append(errs, fmt.Errorf("DECIMALSEP and THOUSANDSSEP are both %q", f.DecimalSep))
	}
	if f.BoolStyle[0] == "" || f.BoolStyle[1] == "" {
		errs = append(errs, fmt.Errorf("BOOLSTYLE %q,%q: both words must be non-empty", f.BoolStyle[0], f.BoolStyle[1]))
	} else if strings.EqualFold(f.BoolStyle[0], f.BoolStyle[1]) {
		errs = append(errs, fmt.Errorf("BOOLSTYLE %q,%q: the true and false words must differ", f.BoolStyle[0], f.BoolStyle[1]))
	}
	if _, err := compileStrftime(f.DateTimeFormat); err != nil {
		errs = append(errs, fmt.Errorf("DATETIMEFORMAT %q: %w", f.DateTimeFormat, err))
	}
	return errors.Join(errs...)
}

func (f Formats) location() *time.Location {
	if f.TimeZone == nil {
		return time.UTC
	}
	return f.TimeZone
}
