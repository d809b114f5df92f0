package loader

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/cqlscan"
	"github.com/cqlload/cqlload/internal/homedir"
	"github.com/cqlload/cqlload/split"
)

// Section groups options in --help and in docs/options.md's options table.
type Section int

// The sections, in the order --help shows them.
const (
	SectionConnection Section = iota
	SectionInput
	SectionDialect
	SectionValues
	SectionBatching
	SectionErrors
	SectionOutput
	numSections
)

var sectionNames = [numSections]string{
	"Connection", "Input", "CSV dialect", "Values", "Batching and rate", "Errors and resume", "Output",
}

func (s Section) String() string {
	if s < 0 || s >= numSections {
		return "Section(" + strconv.Itoa(int(s)) + ")"
	}
	return sectionNames[s]
}

// Sections lists the sections in display order.
func Sections() []Section {
	out := make([]Section, numSections)
	for i := range out {
		out[i] = Section(i)
	}
	return out
}

// An Option is one setting of a load, defined once: its name in a COPY
// statement's WITH clause and in CONFIGFILE or cqlshrc [copy] sections,
// its flag, the kind of value it takes, its default, its help and how it
// differs from cqlsh COPY FROM. OptionTable lists the loader's options;
// SetOption, the command line's flags, --help and docs/options.md's options
// table are all read from it, so an option cannot mean one thing in a
// WITH clause and another as a flag.
//
// A front end may describe its own flags (the host list, the output
// format) with Options that have no setter: they document a flag the
// front end binds itself, and SetOption does not know them.
type Option struct {
	// Name is the upper-case COPY option name; "" for a flag that has no
	// WITH form (the connection's, the output's).
	Name string
	// Flag is the kebab-case flag; "" for a WITH-only option.
	Flag  string
	Short string // one-letter flag, if any
	// Value names the kind of value in --help: int, true|false, seconds,
	// duration, char, text, list, level, path.
	Value   string
	Section Section
	Help    string
	// Cqlsh is set when cqlsh COPY FROM has the option; otherwise it is
	// a cqlload extension (also accepted in WITH when Name is set).
	Cqlsh bool
	// Differs says how cqlload's option differs from cqlsh's; "" when it
	// behaves the same. docs/options.md's table shows it.
	Differs string
	// Documented is the default as docs/options.md shows it, when the value
	// itself would mislead there (it depends on the machine or the table).
	Documented string
	// Example is a command line showing the option in use; --help prints
	// the first of each section.
	Example string
	// Kind says what the option changes, and so whether a resumed run
	// may change it. Every option of OptionTable has one.
	Kind Kind

	aliases []string // further names accepted in WITH (lower case)
	set     func(o *Options, v string) error
	get     func(o *Options) string
}

// Kind is what an option changes.
type Kind int

const (
	// KindUnset: not classified; TestOptionKinds fails on it.
	KindUnset Kind = iota
	// KindShape: how the input is cut into records and chunks, which
	// records are rows (of this split), or what a row becomes. The
	// checkpoint records these options (and the split load's identity
	// hashes them): --resume refuses a run that changes one, since it
	// would settle rows parsed otherwise.
	KindShape
	// KindRun: how the rows are sent (connection, pace, batching,
	// retries, limits) or how the input is reached: SPLITPLAN too (a
	// plan that fits gives the ranges the split would find), and
	// CONFIGFILE (the options it sets each have their own kind). A
	// resumed run may change them.
	KindRun
	// KindOutput: what the run reports and where. (The checkpoint
	// records ERRFILE nonetheless, as the file that holds the rows it
	// settled as rejected.)
	KindOutput
)

func (k Kind) String() string {
	switch k {
	case KindShape:
		return "shape"
	case KindRun:
		return "run"
	case KindOutput:
		return "output"
	}
	return "unset"
}

// Default renders the option's default value as a flag would take it;
// "" when it has none (or the front end binds it).
func (opt Option) Default() string {
	d := DefaultOptions()
	return opt.Get(&d)
}

// Get renders the option's value in o as a flag would take it; "" when
// the option has no field of Options (CONFIGFILE, a front end's flag).
func (opt Option) Get(o *Options) string {
	if opt.get == nil {
		return ""
	}
	return opt.get(o)
}

// Settable reports whether SetOption applies the option (as opposed to a
// front end's own flag, or CONFIGFILE, which the caller reads).
func (opt Option) Settable() bool { return opt.set != nil }

// id is the name Explicit records: the COPY name, else the flag.
func (opt Option) id() string {
	if opt.Name != "" {
		return strings.ToLower(opt.Name)
	}
	return opt.Flag
}

// matches reports whether name (already normalized by optionKey) names opt.
func (opt Option) matches(key string) bool {
	if key == optionKey(opt.Name) || key == optionKey(opt.Flag) {
		return key != ""
	}
	for _, a := range opt.aliases {
		if key == optionKey(a) {
			return true
		}
	}
	return false
}

// optionKey folds the spellings of one option: case, and the dashes and
// underscores of flags (max-in-flight, MAX_IN_FLIGHT, MAXINFLIGHT).
func optionKey(name string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(name)))
}

// OptionTable returns the loader's options, in --help order within each
// section. The slice is the caller's.
func OptionTable() []Option {
	return optionTable()
}

// LookupOption finds a loader option by its COPY name, its flag or an
// alias, in any case and with or without dashes.
func LookupOption(name string) (Option, bool) {
	key := optionKey(name)
	for _, opt := range optionTable() {
		if opt.matches(key) {
			return opt, true
		}
	}
	return Option{}, false
}

// cqlsh option names that only apply to COPY TO: accepted by cqlsh in a
// COPY FROM too (and ignored there), so cqlload says so instead of failing.
var copyToOnly = map[string]bool{
	"pagesize": true, "pagetimeout": true, "begintoken": true, "endtoken": true,
	"maxrequests": true, "maxoutputsize": true, "floatprecision": true, "doubleprecision": true,
}

// cqlshTuning are the hidden options cqlsh's COPY FROM reads to tune
// its worker processes (copyutil.py: "can be set in config files or on
// the cmd line"), each an integer. cqlload has no such processes, so it
// accepts them, as cqlsh does, checks the value as cqlsh would, and
// ignores them (Options.Ignored); a cqlshrc that set one stopped every
// load before.
var cqlshTuning = map[string]bool{
	"maxinflightmessages": true, "maxbackoffattempts": true, "maxpendingchunks": true,
	"requesttimeout": true, "childtimeout": true,
}

// SetOption applies one option by its cqlsh COPY name, its flag or an
// alias (case-insensitive), its value as written in the WITH clause
// without quotes. The command line's flags go through here too, so both
// forms share one meaning per option. CONFIGFILE is read by the caller,
// since it brings more options.
func (o *Options) SetOption(name, value string) error {
	opt, ok := LookupOption(name)
	switch {
	case !ok && cqlshTuning[optionKey(name)]:
		upper := strings.ToUpper(strings.TrimSpace(name))
		if _, err := strconv.Atoi(strings.TrimSpace(value)); err != nil {
			return fmt.Errorf("option %s: want an integer, got %q", upper, value)
		}
		o.ignored = append(o.ignored, upper)
		return nil
	case !ok && copyToOnly[optionKey(name)]:
		return fmt.Errorf("option %s applies to COPY TO only", strings.ToUpper(strings.TrimSpace(name)))
	case !ok || opt.set == nil && opt.Name != "CONFIGFILE":
		return fmt.Errorf("unknown COPY FROM option %s", strings.ToUpper(strings.TrimSpace(name)))
	case opt.set == nil:
		return errors.New("option CONFIGFILE is read by the COPY statement or --config-file, before the other options")
	}
	if err := opt.set(o, value); err != nil {
		return fmt.Errorf("option %s: %w", opt.label(), err)
	}
	o.explicit = append(o.explicit, opt.id())
	return nil
}

// label names the option in errors as the user most likely wrote it.
func (opt Option) label() string {
	if opt.Name != "" {
		return opt.Name
	}
	return "--" + opt.Flag
}

// Explicit reports whether the option (a COPY name, a flag or an alias,
// case-insensitive) was set through SetOption, as opposed to left at its
// default.
func (o *Options) Explicit(name string) bool {
	opt, ok := LookupOption(name)
	if !ok {
		return false
	}
	for _, e := range o.explicit {
		if e == opt.id() {
			return true
		}
	}
	return false
}

// The setters and getters the table is made of.

func setInt(p *int, v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return fmt.Errorf("%q is not an integer", v)
	}
	*p = n
	return nil
}

// parseBytes reads a byte count: an integer with an optional unit, as
// GNU split and dd read them: K, M, G, T and KiB … TiB are powers of
// 1024, kB, MB, GB, TB powers of 1000, B is one; case does not matter.
func parseBytes(v string) (int64, error) {
	s := strings.TrimSpace(v)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '-' && r != '+' })
	if i < 0 {
		i = len(s)
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number of bytes", v)
	}
	unit := strings.ToLower(strings.TrimSpace(s[i:]))
	scale := int64(1)
	if unit != "" && unit != "b" {
		p := strings.IndexByte("kmgt", unit[0]) + 1
		rest := unit[1:]
		base := int64(1024)
		switch rest {
		case "", "i", "ib":
		case "b":
			base = 1000
		default:
			p = 0
		}
		if p == 0 {
			return 0, fmt.Errorf("%q is not a number of bytes (units: K, M, G, T or KiB … TiB, powers of 1024; kB … TB, powers of 1000)", v)
		}
		for range p {
			scale *= base
		}
	}
	if n > math.MaxInt64/scale || n < math.MinInt64/scale {
		return 0, fmt.Errorf("%q is too many bytes", v)
	}
	return n * scale, nil
}

// bytesOpt is an option holding a byte count (parseBytes).
func bytesOpt[T int | int64](field func(*Options) *T) accessor {
	return accessor{func(o *Options, v string) error {
		n, err := parseBytes(v)
		if err != nil {
			return err
		}
		if int64(T(n)) != n {
			return fmt.Errorf("%q is too many bytes", v)
		}
		*field(o) = T(n)
		return nil
	}, func(o *Options) string {
		return strconv.FormatInt(int64(*field(o)), 10)
	}}
}

func intOpt(field func(*Options) *int) accessor {
	return accessor{func(o *Options, v string) error {
		return setInt(field(o), v)
	}, func(o *Options) string {
		return strconv.Itoa(*field(o))
	}}
}

func boolOpt(field func(*Options) *bool) accessor {
	return accessor{func(o *Options, v string) error {
		b, err := optionBool(v)
		if err == nil {
			*field(o) = b
		}
		return err
	}, func(o *Options) string {
		return strconv.FormatBool(*field(o))
	}}
}

func textOpt(field func(*Options) *string) accessor {
	return accessor{func(o *Options, v string) error {
		*field(o) = v
		return nil
	}, func(o *Options) string {
		return *field(o)
	}}
}

// pathOpt is textOpt for a file's path, with a leading ~ expanded as
// cqlsh expands ERRFILE's and RATEFILE's (os.path.expanduser).
func pathOpt(field func(*Options) *string) accessor {
	return accessor{func(o *Options, v string) error {
		*field(o) = homedir.Expand(v)
		return nil
	}, func(o *Options) string {
		return *field(o)
	}}
}

func durationOpt(field func(*Options) *time.Duration) accessor {
	return accessor{func(o *Options, v string) error {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("want a duration such as 30s or 1m, got %q", v)
		}
		*field(o) = d
		return nil
	}, func(o *Options) string {
		return field(o).String()
	}}
}

// charOpt takes one ASCII character, or the escape forms cqlsh users
// type: '\t' (also '\\t', as shells pass it on) is a tab, '\\' a
// backslash. With emptyOff, an empty value is 0 (ESCAPE = ” turns
// escaping off).
func charOpt(field func(*Options) *byte, emptyOff bool) accessor {
	return accessor{func(o *Options, v string) error {
		if v == "" && emptyOff {
			*field(o) = 0
			return nil
		}
		switch v {
		case `\t`, `\\t`:
			v = "\t"
		case `\\`:
			v = `\`
		}
		if len(v) != 1 || v[0] >= 0x80 {
			return fmt.Errorf("want a single ASCII character (or \\t for a tab), got %q", v)
		}
		*field(o) = v[0]
		return nil
	}, func(o *Options) string {
		if c := *field(o); c != 0 {
			return string(c)
		}
		return ""
	}}
}

// optionBool reads a boolean option's value. cqlsh takes "true" in any
// case as true and every other word as false, so HEADER = 'yes' loads
// the first line as data there; any word but true and false is refused
// here rather than read either way.
func optionBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("want true or false, got %q (cqlsh reads any word but true as false)", v)
}

// accessor reads and writes one option's field of Options.
type accessor struct {
	set func(o *Options, v string) error
	get func(o *Options) string
}

// with gives an Option its accessor.
func with(opt Option, a accessor) Option {
	opt.set, opt.get = a.set, a.get
	return opt
}

// optionTable defines every option of the loader, once. It is built per
// call (it is small) so that no caller can change another's.
func optionTable() []Option {
	return []Option{
		// Connection.
		with(Option{Name: "CONSISTENCY", Kind: KindRun, Flag: "consistency", Value: "level", Section: SectionConnection,
			Help:    "write consistency level",
			Differs: "cqlload extension: cqlsh takes it from its CONSISTENCY command, which cqlload reads too before the COPY (`-e \"CONSISTENCY QUORUM; COPY …\"`); default LOCAL_ONE (cqlsh: ONE), so that a client in one data center writes to its own",
			Example: "cqlload --consistency QUORUM --table ks.t data.csv"},
			accessor{func(o *Options, v string) (err error) {
				o.Consistency, err = ParseConsistency(v)
				return err
			}, func(o *Options) string { return o.Consistency.String() }}),

		// Input.
		with(Option{Name: "MAXROWS", Kind: KindShape, Flag: "max-rows", Value: "int", Section: SectionInput, Cqlsh: true,
			Help:    "records read per file at most; -1 = all",
			Differs: "one input: counts the skipped rows, as in cqlsh; several: counted **per file**, after SKIPROWS",
			Example: "cqlload --table ks.t --skip-rows 1 --max-rows 1000 data.csv"},
			intOpt(func(o *Options) *int { return &o.Dialect.MaxRows })),
		with(Option{Name: "SKIPROWS", Kind: KindShape, Flag: "skip-rows", Value: "int", Section: SectionInput, Cqlsh: true,
			Help: "records skipped at the start of each file", Differs: "counted **per file**; a negative count is an error (cqlsh skips none)"},
			intOpt(func(o *Options) *int { return &o.Dialect.SkipRows })),
		with(Option{Name: "SKIPCOLS", Kind: KindShape, Flag: "skip-cols", Value: "list", Section: SectionInput, Cqlsh: true,
			Help: "comma-separated columns of the file not to load", Documented: "none",
			Differs: "a skipped column of the column list need not be one of the table's (cqlsh refuses the statement): the way to name a file's extra column; a name matches exactly, else the one name equal but for case (two are an error); a \"double-quoted\" name may hold commas and matches only exactly"},
			accessor{func(o *Options, v string) (err error) { o.SkipCols, err = cqlscan.Names(v); return err },
				func(o *Options) string { return strings.Join(o.SkipCols, ",") }}),
		{Name: "CONFIGFILE", Kind: KindRun, Flag: "config-file", Value: "path", Section: SectionInput, Cqlsh: true,
			Help:       "cqlshrc-style file whose [copy], [copy-from], [copy:ks.t] and [copy-from:ks.t] sections hold options",
			Documented: "none",
			Differs:    "a file that cannot be read is an error (cqlsh ignores it): the options it was to set would silently not apply"},
		with(Option{Name: "FLUSHINTERVAL", Kind: KindRun, Flag: "flush-interval", Value: "duration", Section: SectionInput,
			Help:    "a stream (stdin, a pipe) silent this long has the rows read so far sent; 0 waits for full chunks",
			Differs: "cqlload extension: a slow producer's rows are written (uncompressed streams)"},
			durationOpt(func(o *Options) *time.Duration { return &o.FlushInterval })),
		with(Option{Name: "STORECONNECTTIMEOUT", Kind: KindRun, Flag: "store-connect-timeout", Value: "duration", Section: SectionInput,
			Help:    "longest a connection to an object store (s3://) may take: the dial and the TLS handshake",
			Differs: "cqlload extension"},
			durationOpt(func(o *Options) *time.Duration { return &o.StoreConnectTimeout })),
		with(Option{Name: "STORETIMEOUT", Kind: KindRun, Flag: "store-timeout", Value: "duration", Section: SectionInput,
			Help:    "longest a request to an object store waits for a byte (its response's headers, or the next byte of a body being read); a store that has answered nothing yet fails at once, a later stall is retried from the byte reached",
			Differs: "cqlload extension"},
			durationOpt(func(o *Options) *time.Duration { return &o.StoreTimeout })),
		with(Option{Name: "READERS", Kind: KindShape, Flag: "readers", Value: "int", Section: SectionInput,
			Help:    "places of the input read at once: a large file (plain, bgzip, or zstd of several frames) is cut into stripes read side by side, so that a file in token order (a full-table export) keeps every node busy; 1 reads each file from start to end",
			Differs: "cqlload extension: cqlsh and DSBulk read a file from start to end, so a token-ordered file loads at one node's speed"},
			intOpt(func(o *Options) *int { return &o.Readers })),
		with(Option{Name: "STRIPESIZE", Kind: KindShape, Flag: "stripe-size", Value: "bytes", Section: SectionInput,
			Help:    "with --readers, the smallest stripe: a file under two of them is read from start to end",
			Differs: "cqlload extension"},
			bytesOpt(func(o *Options) *int64 { return &o.StripeSize })),
		with(Option{Name: "REPEAT", Kind: KindShape, Flag: "repeat", Value: "int", Section: SectionInput,
			Help:    "read the input this many times, keys unchanged: a file makes a sustained load (not with --resume)",
			Differs: "cqlload extension, for load testing"},
			intOpt(func(o *Options) *int { return &o.Repeat })),
		with(Option{Name: "SPLIT", Kind: KindShape, Flag: "split", Value: "I/N", Section: SectionInput,
			Help:       "load split I (from 0) of N of the inputs: N runs with the same inputs load every record exactly once (Kubernetes: $(JOB_COMPLETION_INDEX)/N)",
			Documented: "none: all",
			Differs:    "cqlload extension: files, and byte ranges of uncompressed ones, dealt by size; the error file gets the split's index",
			Example:    "cqlload --table ks.t --split 2/8 --summary-json split-2.json 'data/*.csv'"},
			accessor{func(o *Options, v string) error {
				i, n, err := split.ParseIndex(v)
				if err != nil {
					return err
				}
				o.SplitIndex, o.SplitCount = i, n
				return nil
			}, func(o *Options) string {
				if o.SplitCount <= 1 {
					return ""
				}
				return fmt.Sprintf("%d/%d", o.SplitIndex, o.SplitCount)
			}}),
		with(Option{Name: "SPLITSIZE", Kind: KindShape, Flag: "split-size", Value: "bytes", Section: SectionInput,
			Help:    "with --split, the size up to which an uncompressed file goes to one split whole; larger ones are cut where the splits' shares meet, so that the splits' bytes balance (compressed files go whole)",
			Differs: "cqlload extension"},
			bytesOpt(func(o *Options) *int64 { return &o.SplitSize })),
		with(Option{Name: "SPLITPLAN", Kind: KindRun, Flag: "split-plan", Value: "path", Section: SectionInput,
			Help:    "with --split, take the record starts at the cuts from this split plan (written by --write-split-plan with the same inputs and options) instead of searching each cut file's prefix for them",
			Differs: "cqlload extension: in a file without quotes the split holding its last range otherwise reads (N-1)/N of it first"},
			textOpt(func(o *Options) *string { return &o.SplitPlan })),
		with(Option{Name: "VERIFYBUFFER", Kind: KindRun, Flag: "verify-buffer", Value: "bytes", Section: SectionInput,
			Help:    "compressed bytes of a gzip member or zstd frame checked before its rows are sent; 0 = none",
			Differs: "cqlload extension: a damaged file stores no altered row; rows of a larger member that then fails are named suspect in the error log"},
			bytesOpt(func(o *Options) *int { return &o.VerifyBuffer })),

		// CSV dialect.
		with(Option{Name: "HEADER", Kind: KindShape, Flag: "header", Value: "true|false", Section: SectionDialect, Cqlsh: true,
			Help:    "the first line of each file holds column names",
			Differs: "with no column list, fields map to columns **by header name** (cqlsh maps by position); a word but true or false is an error (cqlsh reads it as false)",
			Example: "cqlload --table ks.t --header true --delimiter '\\t' data.tsv"},
			boolOpt(func(o *Options) *bool { return &o.Dialect.Header })),
		with(Option{Name: "DELIMITER", Kind: KindShape, Flag: "delimiter", Value: "char", Section: SectionDialect, Cqlsh: true,
			Help: "field delimiter", Differs: "`'\\t'` (also `'\\\\t'`, as shells may pass it on) is a tab; one ASCII character (cqlsh takes any one character, `§` too): fields are found by byte"},
			charOpt(func(o *Options) *byte { return &o.Dialect.Delimiter }, false)),
		with(Option{Name: "QUOTE", Kind: KindShape, Flag: "quote", Value: "char", Section: SectionDialect, Cqlsh: true,
			Help: "quote character", Differs: "`'\\t'` is a tab"},
			charOpt(func(o *Options) *byte { return &o.Dialect.Quote }, false)),
		with(Option{Name: "ESCAPE", Kind: KindShape, Flag: "escape", Value: "char", Section: SectionDialect, Cqlsh: true,
			Help:    "escape character inside quoted fields; empty for none",
			Differs: "`ESCAPE = ''` turns escaping off: use it for plain RFC 4180 files whose data holds backslashes; `'\\\\'` is one backslash"},
			charOpt(func(o *Options) *byte { return &o.Dialect.Escape }, true)),
		with(Option{Name: "ENCODING", Kind: KindShape, Flag: "encoding", Value: "text", Section: SectionDialect, Cqlsh: true,
			Help:    "input encoding: utf-8, latin-1, utf-16, utf-16le, utf-16be",
			Differs: "applies to input (cqlsh: COPY TO only)"},
			accessor{func(o *Options, v string) error { o.Dialect.Encoding = v; return nil },
				func(o *Options) string {
					if o.Dialect.Encoding == "" {
						return "utf-8"
					}
					return o.Dialect.Encoding
				}}),
		with(Option{Name: "MAXRECORDBYTES", Kind: KindShape, Flag: "max-record-bytes", Value: "bytes", Section: SectionDialect,
			Help:    "a record longer than this (in UTF-8, as decoded from ENCODING) is rejected whole, its first --max-error-record-bytes in the error file",
			Differs: "cqlload extension (cqlsh reads any length into memory)"},
			accessor{bytesOpt(func(o *Options) *int { return &o.Dialect.MaxRecordBytes }).set,
				func(o *Options) string {
					if o.Dialect.MaxRecordBytes == 0 {
						return strconv.Itoa(csvparse.DefaultMaxRecordBytes)
					}
					return strconv.Itoa(o.Dialect.MaxRecordBytes)
				}}),

		// Values.
		with(Option{Name: "NULL", Kind: KindShape, Flag: "null", Value: "text", Section: SectionValues, Cqlsh: true,
			aliases:    []string{"nullval"},
			Help:       "the text of a null value, quoted or not",
			Documented: "empty",
			Differs:    "a field equal to it is null, quoted or not, as in cqlsh; with another marker an empty field is null in every column but text, varchar and ascii (cqlsh: false for boolean, an empty blob, an error for inet)",
			Example:    "cqlload --table ks.t --null NULL --datetime-format '%d/%m/%Y %H:%M' data.csv"},
			accessor{func(o *Options, v string) error { o.Null, o.Formats.NullMarker = v, v; return nil },
				func(o *Options) string { return o.Null }}),
		with(Option{Name: "NULLMODE", Kind: KindShape, Flag: "null-mode", Value: "null|unset", Section: SectionValues,
			Help:    "null: write nulls (tombstones) as cqlsh does; unset: leave those columns unset",
			Differs: "cqlload extension: `unset` writes no tombstones and keeps an existing value"},
			accessor{func(o *Options, v string) error {
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "null":
					o.NullMode = NullWrite
				case "unset":
					o.NullMode = NullUnset
				default:
					return fmt.Errorf("want null or unset, got %q", v)
				}
				return nil
			}, func(o *Options) string {
				if o.NullMode == NullUnset {
					return "unset"
				}
				return "null"
			}}),
		with(Option{Name: "DATETIMEFORMAT", Kind: KindShape, Flag: "datetime-format", Value: "text", Section: SectionValues, Cqlsh: true,
			Help: "timestamp format, strftime syntax as in cqlsh", Differs: "every CQL timestamp literal is accepted too"},
			textOpt(func(o *Options) *string { return &o.Formats.DateTimeFormat })),
		with(Option{Name: "TIMEZONE", Kind: KindShape, Flag: "timezone", Value: "zone", Section: SectionValues,
			Help:    "time zone of timestamps that carry none",
			Differs: "cqlload extension (cqlsh uses UTC, or $TZ for display only)"},
			accessor{func(o *Options, v string) error {
				loc, err := time.LoadLocation(v)
				if err != nil {
					return err
				}
				o.Formats.TimeZone = loc
				return nil
			}, func(o *Options) string {
				if o.Formats.TimeZone == nil {
					return "UTC"
				}
				return o.Formats.TimeZone.String()
			}}),
		with(Option{Name: "DECIMALSEP", Kind: KindShape, Flag: "decimal-sep", Value: "text", Section: SectionValues, Cqlsh: true,
			Help: "decimal separator"},
			textOpt(func(o *Options) *string { return &o.Formats.DecimalSep })),
		with(Option{Name: "THOUSANDSSEP", Kind: KindShape, Flag: "thousands-sep", Value: "text", Section: SectionValues, Cqlsh: true,
			Help: "thousands separator", Documented: "none",
			Differs: "dropped only between digits (cqlsh drops it anywhere: `.1` is 1 and `1..2` is 12 there, errors here)"},
			textOpt(func(o *Options) *string { return &o.Formats.ThousandsSep })),
		with(Option{Name: "BOOLSTYLE", Kind: KindShape, Flag: "bool-style", Value: "text", Section: SectionValues, Cqlsh: true,
			Help: "true and false words, comma separated", Differs: "any other value is an error (cqlsh stores false)"},
			accessor{func(o *Options, v string) error {
				// Two words, as cqlsh's check_options insists: with a
				// third, Cut took "no,maybe" for the false word.
				t, f, ok := strings.Cut(v, ",")
				if !ok || strings.TrimSpace(t) == "" || strings.TrimSpace(f) == "" || strings.Contains(f, ",") {
					return fmt.Errorf("want two words separated by a comma, got %q", v)
				}
				o.Formats.BoolStyle = [2]string{strings.TrimSpace(t), strings.TrimSpace(f)}
				return nil
			}, func(o *Options) string { return o.Formats.BoolStyle[0] + "," + o.Formats.BoolStyle[1] }}),
		with(Option{Name: "CQLSHESCAPES", Kind: KindShape, Flag: "cqlsh-escapes", Value: "true|false", Section: SectionValues,
			Help:    "the input was written by cqlsh COPY TO: undo its backslash escapes inside text (\\\\, \\n, \\xHH)",
			Differs: "cqlload extension: cqlsh COPY FROM stores those escapes as they are"},
			boolOpt(func(o *Options) *bool { return &o.Formats.CqlshEscapes })),
		with(Option{Name: "TTL", Kind: KindShape, Flag: "ttl", Value: "int", Section: SectionValues, Cqlsh: true,
			Help: "time to live of written rows in seconds; -1 = none"},
			intOpt(func(o *Options) *int { return &o.TTL })),
		with(Option{Name: "WRITETIMEFIELD", Kind: KindShape, Flag: "writetime-field", Value: "name", Section: SectionValues,
			Help: "a field of the input (named by the header or the column list), not a column, that gives each row's write time: " +
				"microseconds since the epoch, as writetime() returns them, or a timestamp; an empty field keeps the run's own",
			Documented: "none",
			Differs:    "cqlload extension (DSBulk: a mapping to writetime(*)): a migration keeps the source's write times, so that an older row never overwrites a newer live write",
			Example:    "cqlload --table ks.t --header --writetime-field wt --ttl-field ttl export.csv"},
			textOpt(func(o *Options) *string { return &o.WriteTimeField })),
		with(Option{Name: "TTLFIELD", Kind: KindShape, Flag: "ttl-field", Value: "name", Section: SectionValues,
			Help:       "a field of the input, not a column, that gives each row's TTL in seconds (0: none); an empty field takes --ttl's",
			Documented: "none",
			Differs:    "cqlload extension (DSBulk: a mapping to ttl(*))"},
			textOpt(func(o *Options) *string { return &o.TTLField })),

		// Batching and rate.
		with(Option{Name: "NUMPROCESSES", Kind: KindRun, Flag: "workers", Value: "int", Section: SectionBatching, Cqlsh: true,
			Help: "parse/convert workers", Documented: "CPU count",
			Differs: "goroutines (cqlsh: CPUs − 1 processes, at most 16)",
			Example: "cqlload --table ks.t --ingest-rate 50000 --max-in-flight 64 data.csv"},
			intOpt(func(o *Options) *int { return &o.Workers })),
		with(Option{Name: "CHUNKSIZE", Kind: KindShape, Flag: "chunk-size", Value: "int", Section: SectionBatching, Cqlsh: true,
			Help: "records per chunk handed to a worker"},
			intOpt(func(o *Options) *int { return &o.ChunkSize })),
		with(Option{Name: "INGESTRATE", Kind: KindRun, Flag: "ingest-rate", Value: "int", Section: SectionBatching, Cqlsh: true,
			Help: "rows per second at most; 0 = unlimited", Documented: "0 = unlimited",
			Differs: "cqlsh's default is 100000 rows/s; an explicit value is honoured"},
			intOpt(func(o *Options) *int { return &o.IngestRate })),
		with(Option{Name: "MINBATCHSIZE", Kind: KindRun, Flag: "min-batch-size", Value: "int", Section: SectionBatching, Cqlsh: true,
			Help:    "a partition with at least this many rows gets batches of its own",
			Differs: "given alone above MAXBATCHSIZE's default, it raises MAXBATCHSIZE to it"},
			intOpt(func(o *Options) *int { return &o.MinBatchSize })),
		with(Option{Name: "MAXBATCHSIZE", Kind: KindRun, Flag: "max-batch-size", Value: "int", Section: SectionBatching, Cqlsh: true,
			Help:    "rows per batch at most",
			Differs: "given alone below MINBATCHSIZE's default (`MAXBATCHSIZE = 1`), it lowers MINBATCHSIZE to it; only both given and contradictory are an error"},
			intOpt(func(o *Options) *int { return &o.MaxBatchSize })),
		with(Option{Name: "MAXBATCHBYTES", Kind: KindRun, Flag: "max-batch-bytes", Value: "bytes", Section: SectionBatching,
			Help:    "serialized value bytes per batch at most",
			Differs: "cqlload extension: keeps multi-partition batches under Cassandra's 50 KiB failure threshold"},
			bytesOpt(func(o *Options) *int { return &o.MaxBatchBytes })),
		with(Option{Name: "MAXINFLIGHT", Kind: KindRun, Flag: "max-in-flight", Value: "int", Section: SectionBatching,
			Help:    "requests awaiting one node at once at most (the ceiling of the adaptive limit)",
			Differs: "cqlload extension (cqlsh: one request per worker process)"},
			intOpt(func(o *Options) *int { return &o.MaxInFlight })),
		with(Option{Name: "ADAPTIVE", Kind: KindRun, Flag: "adaptive", Value: "true|false", Section: SectionBatching,
			Help:    "each node's limit on requests in flight follows its latency, up to --max-in-flight, and a node that sheds or times out requests is paced at the rate it takes; false: fixed at --max-in-flight, nothing paced",
			Differs: "cqlload extension: cqlsh and DSBulk keep a fixed concurrency"},
			boolOpt(func(o *Options) *bool { return &o.Adaptive })),
		with(Option{Name: "DURATION", Kind: KindRun, Flag: "duration", Value: "duration", Section: SectionBatching,
			Help:       "stop sending after this long: an orderly end (exit 0), the rows left counted as rows_not_sent_by_duration; 0 = no limit",
			Documented: "0 = no limit",
			Differs:    "cqlload extension, for load testing (not with --resume)",
			Example:    "cqlload --table ks.t --repeat 100 --duration 10m --ingest-rate 50000 --histogram-log run.hlog data.csv"},
			durationOpt(func(o *Options) *time.Duration { return &o.Duration })),
		{Name: "PREPAREDSTATEMENTS", Kind: KindRun, Value: "true|false", Section: SectionBatching, Cqlsh: true,
			Help: "bind prepared statements", Documented: "true",
			Differs: "`false` is refused: cqlload always binds prepared statements",
			set: func(_ *Options, v string) error {
				prepared, err := optionBool(v)
				if err == nil && !prepared {
					// cqlsh's unprepared mode exists for its own
					// performance problems; every value here is bound.
					err = errors.New("false is not supported: cqlload always uses prepared statements")
				}
				return err
			}},

		// Errors and resume.
		with(Option{Name: "MAXATTEMPTS", Kind: KindRun, Flag: "max-attempts", Value: "int", Section: SectionErrors, Cqlsh: true,
			Help:       "attempts per batch for retryable errors at most; 0 = as many as --retry-window allows",
			Documented: "0 = bounded by `--retry-window`",
			Differs:    "cqlsh's 5 attempts last under a second, so a node restart rejected rows; an explicit value is honoured",
			Example:    "cqlload --table ks.t --resume load.ckpt --err-file load.err data.csv.gz"},
			intOpt(func(o *Options) *int { return &o.MaxAttempts })),
		with(Option{Name: "RETRYWINDOW", Kind: KindRun, Flag: "retry-window", Value: "duration", Section: SectionErrors,
			Help:    "how long a failing batch is retried, and how long the run waits while no node answers",
			Differs: "cqlload extension"},
			durationOpt(func(o *Options) *time.Duration { return &o.RetryWindow })),
		with(Option{Name: "MAXPARSEERRORS", Kind: KindRun, Flag: "max-parse-errors", Value: "int", Section: SectionErrors, Cqlsh: true,
			Help: "abort after this many rows fail to parse; -1 = no limit"},
			intOpt(func(o *Options) *int { return &o.MaxParseErrors })),
		with(Option{Name: "MAXINSERTERRORS", Kind: KindRun, Flag: "max-insert-errors", Value: "int", Section: SectionErrors, Cqlsh: true,
			Help: "abort after this many rows fail to insert or are left unknown (timed out); -1 = no limit"},
			intOpt(func(o *Options) *int { return &o.MaxInsertErrors })),
		with(Option{Name: "ERRFILE", Kind: KindOutput, Flag: "err-file", Value: "path", Section: SectionErrors, Cqlsh: true,
			Help: "file receiving rejected rows (default import_<ks>_<table>.err)", Documented: "`import_<ks>_<table>.err`",
			Differs: "plus `ERRFILE.log` with file, line, column and reason; `ERRFILE.2`, … for inputs with other headers; replaced by a fresh run"},
			pathOpt(func(o *Options) *string { return &o.ErrFile })),
		with(Option{Name: "MAXERRORRECORDBYTES", Kind: KindOutput, Flag: "max-error-record-bytes", Value: "bytes", Section: SectionErrors,
			Help:    "of a record longer than --max-record-bytes, the error file keeps this many bytes and a marker of the cut; -1 = the whole record, kept in a temporary file ($TMPDIR) until written",
			Differs: "cqlload extension (cqlsh reads any length into memory)"},
			bytesOpt(func(o *Options) *int64 { return &o.MaxErrorRecordBytes })),
		with(Option{Name: "RESUME", Kind: KindOutput, Flag: "resume", Value: "path", Section: SectionErrors,
			Help:       "checkpoint file: records how far the run got; if it exists, what it says is done is skipped",
			Documented: "none",
			Differs:    "cqlload extension: exact resume after any stop, `kill -9` included (see *Resuming a stopped run* in docs/failures.md)"},
			pathOpt(func(o *Options) *string { return &o.Resume })),

		// Output.
		with(Option{Name: "REPORTFREQUENCY", Kind: KindOutput, Flag: "report-frequency", Value: "seconds", Section: SectionOutput, Cqlsh: true,
			Help:    "seconds between progress reports",
			Differs: "log lines (off a terminal) come every 5 s unless it is given",
			Example: "cqlload --table ks.t --progress log --summary-json - data.csv > summary.json"},
			accessor{func(o *Options, v string) error {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || f <= 0 {
					return fmt.Errorf("want seconds > 0, got %q", v)
				}
				o.ReportFrequency = time.Duration(f * float64(time.Second))
				return nil
			}, func(o *Options) string { return strconv.FormatFloat(o.ReportFrequency.Seconds(), 'f', -1, 64) }}),
		with(Option{Name: "RATEFILE", Kind: KindOutput, Flag: "rate-file", Value: "path", Section: SectionOutput, Cqlsh: true,
			Help:       "file to append progress lines to, every REPORTFREQUENCY",
			Documented: "none",
			Differs:    "each line adds the interval's figures to cqlsh's three: rows/s, requests/s, latency p50/p95/p99/max, errors, retries, in-flight limit (a `#` header names the columns)"},
			pathOpt(func(o *Options) *string { return &o.RateFile })),
		with(Option{Name: "HISTOGRAMLOG", Kind: KindOutput, Flag: "histogram-log", Value: "path", Section: SectionOutput,
			Help:       "write request latencies (µs) to this file in HdrHistogram's interval log format, one histogram a second",
			Documented: "none",
			Differs:    "cqlload extension: compare runs with HdrHistogram's tools (HistogramLogAnalyzer, hdr-plot)"},
			pathOpt(func(o *Options) *string { return &o.HistogramLog })),
	}
}

// CopyToOnly reports whether name is a cqlsh COPY TO option, which cqlsh
// accepts in a COPY FROM too and ignores there (a [copy] section serves
// both).
func CopyToOnly(name string) bool { return copyToOnly[optionKey(name)] }

// SameOption reports whether a and b spell one option name: case, dashes
// and underscores aside (max-in-flight, MAX_IN_FLIGHT, MAXINFLIGHT).
func SameOption(a, b string) bool { return optionKey(a) == optionKey(b) }
