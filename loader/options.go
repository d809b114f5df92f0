package loader

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/schema"
	"github.com/cqlload/cqlload/source"
)

// NullMode says what a field equal to the NULL marker becomes.
type NullMode int

const (
	// NullWrite binds null, as cqlsh does (it writes a tombstone).
	NullWrite NullMode = iota
	// NullUnset leaves the column unset: no tombstone, and an existing
	// value is kept.
	NullUnset
)

// Options configure a load. DefaultOptions returns cqlsh COPY FROM's
// defaults; the few deliberate differences are noted on each field.
type Options struct {
	// Connection. Session, when set, is used as is and the other
	// connection fields are ignored (the caller owns it).
	Session        *gocql.Session
	Hosts          []string // "host" or "host:port"
	Port           int      // default 9042
	Username       string
	Password       string
	TLS            *tls.Config
	ConnectTimeout time.Duration // default 5s (cqlsh's --connect-timeout)
	RequestTimeout time.Duration // default 10s (cqlsh's --request-timeout)
	Consistency    gocql.Consistency
	LocalDC        string    // prefer coordinators in this data center
	DriverLog      io.Writer // the driver's own log (reconnections, host events); nil discards it
	// OnWarnings receives the warnings the cluster attaches to responses
	// (such as a batch over the warn threshold). The loader counts them
	// into the summary either way.
	OnWarnings func(host string, warnings []string)
	// countWarnings is the Loader's own count, set by New.
	countWarnings func(warnings []string)

	// What to load. Keyspace and Table are the names as stored, which
	// case matters in: "events", or "MyEvents" for a table created as
	// "MyEvents" in double quotes. cqlsh.ParseCopy and cqlsh.ParseTable read them as
	// CQL does, lower-casing names not in double quotes.
	Keyspace, Table string
	Columns         []string // the COPY column list, as CQL identifiers (see cqlsh.ParseColumns); empty means all, in cqlsh's order (or by header name)
	Files           []string // cqlsh FROM specs: lists, globs, directories, "-" or "STDIN"
	// StoreConnectTimeout bounds each connection to an object store
	// holding inputs: the dial and the TLS handshake. Default 10s;
	// 0 is the default too.
	StoreConnectTimeout time.Duration
	// StoreTimeout is the longest a request to an object store waits
	// for a byte: its response's headers, or the next byte of a body
	// being read. Default 1m; 0 is the default too.
	StoreTimeout time.Duration
	Stdin        io.Reader

	Dialect  csvparse.Dialect
	Formats  schema.Formats
	Null     string // NULL: the marker for a null value, default ""
	NullMode NullMode
	SkipCols []string // SKIPCOLS: file columns not loaded

	// Throughput.
	ChunkSize   int // CHUNKSIZE: records per chunk handed to a worker, default 5000
	Workers     int // NUMPROCESSES: parse/convert workers, default the CPU count (cqlsh: CPUs-1, at most 16)
	MaxInFlight int // requests awaiting the cluster at once: the ceiling of each node's limit
	// Adaptive lets each coordinator's limit on requests in flight follow
	// the node's latency and overload (internal/limit), up to
	// MaxInFlight; false keeps it at MaxInFlight. Default true.
	Adaptive      bool
	IngestRate    int // INGESTRATE rows/s; 0 = unlimited (cqlsh: 100000)
	MinBatchSize  int // MINBATCHSIZE: a partition with at least this many rows gets batches of its own, default 10
	MaxBatchSize  int // MAXBATCHSIZE: rows per batch, default 20
	MaxBatchBytes int // serialized value bytes per batch, default 16 KiB (Cassandra fails multi-partition batches over 50 KiB)
	// MaxAttempts (MAXATTEMPTS) bounds the attempts per batch when set;
	// 0, the default, leaves it to RetryWindow (cqlsh: 5 attempts, which
	// last under a second and lose rows to a node restart).
	MaxAttempts int
	// RetryWindow is how long a batch is retried from its first failure
	// (timeouts, overload, unavailable replicas, lost connections), and
	// how long the run goes on while no node answers at all. Default 60s.
	RetryWindow time.Duration
	TTL         int // TTL in seconds; < 0 none (default -1)
	// WriteTimeField and TTLField name fields of the input (by the
	// header or the column list) that are not columns but give each
	// row's write time (USING TIMESTAMP: microseconds since the epoch,
	// or a timestamp) and TTL (USING TTL, seconds; 0 none): a migration
	// keeps the source's, so that an older row never overwrites a newer
	// live write. A row whose field is empty keeps the run's write time
	// (its place in the input) or TTL. "" (the default): none.
	WriteTimeField, TTLField string

	// Errors.
	MaxParseErrors  int    // MAXPARSEERRORS: rows; < 0 unlimited (default -1)
	MaxInsertErrors int    // MAXINSERTERRORS: rows; < 0 unlimited (default 1000)
	ErrFile         string // ERRFILE: default import_<ks>_<table>.err
	// MaxErrorRecordBytes is how much of a record over MaxRecordBytes
	// the error file keeps: its first bytes, then a marker saying what
	// was cut; < 0 keeps it whole, in a temporary file (TMPDIR) while
	// it waits. Default csvparse.DefaultKeepTooLong (1 MiB).
	MaxErrorRecordBytes int64

	// DryRun reads and converts the input, and writes the error file and
	// summary, as a real run would, but sends nothing: the rows that
	// would be written are counted as RowsDryRun (part of RowsSkipped).
	DryRun bool

	// Resume names a checkpoint file: a run records there how far it got,
	// and a run started with an existing one skips what it says is done.
	Resume string

	// FlushInterval: a stream (stdin, a pipe) that gives no new data for
	// this long has the whole records read so far sent, so that a slow
	// producer's rows are written. Default 1s; <= 0 waits for full chunks.
	FlushInterval time.Duration
	// VerifyBuffer is how much compressed data of one gzip member or
	// zstd frame is checked before any of its rows is sent, so that a
	// damaged file stores no altered row; rows of a larger member are
	// named suspect in the error log if it then fails. Default 8 MiB;
	// <= 0 checks nothing before use.
	VerifyBuffer int
	// Readers is how many places of the input are read at once: each
	// large enough file, plain or compressed in parts (bgzip, zstd
	// frames), is cut into stripes, so that rows of
	// a file in token order (a full-table export) reach every node at
	// once (stripes.go). 1 reads every input from start to end; default
	// DefaultReaders. StripeSize is the smallest stripe: a file under
	// two of them is read whole (default 4 MiB).
	Readers    int
	StripeSize int64

	// Load testing. Repeat reads the input this many times, keys
	// unchanged, so that a file makes a sustained load (default 1).
	// Duration, when positive, stops sending after that long: an orderly
	// end, the rows read but not sent counted as RowsNotSentByDuration
	// (skipped), not as failures. HistogramLog names a file that receives
	// the request latencies in HdrHistogram's interval log format.
	Repeat       int
	Duration     time.Duration
	HistogramLog string

	// SplitIndex of SplitCount (--split I/N) makes the run load one part
	// of the inputs, so that N runs with the same inputs load every
	// record once (see splitSources); SplitCount 0 or 1 loads all.
	// SplitSize is the size up to which an uncompressed file goes to
	// one split whole; larger ones are cut where the splits' shares
	// meet (default 64 MiB; see package split).
	SplitIndex, SplitCount int
	SplitSize              int64
	// SplitPlan, with SplitCount > 1, is a split plan file
	// (WriteSplitPlan) to take the record starts at the cuts from,
	// instead of searching each cut file's prefix for them.
	SplitPlan string

	ReportFrequency time.Duration // REPORTFREQUENCY, default 0.25s
	RateFile        string        // RATEFILE: progress lines are appended here too
	// OtherOutputs are files the caller writes during or after the run
	// (the CLI's --summary-json): like the run's own outputs, Run refuses
	// to take one of them for an input.
	OtherOutputs []Output

	// Backoff is the first retry delay; it doubles per attempt with full
	// jitter, capped at MaxBackoff.
	Backoff, MaxBackoff time.Duration

	// explicit lists the options given through SetOption (canonical
	// lower-case names), for the defaults that depend on others: see
	// Explicit. Appended only, so a copy of Options never sees another
	// copy's later additions.
	explicit []string
	// ignored lists cqlsh's worker-process tuning options that were
	// given (see Ignored).
	ignored []string
}

// Ignored names the options given that cqlsh reads and cqlload does not
// use: cqlsh's tuning of its worker processes (MAXINFLIGHTMESSAGES,
// REQUESTTIMEOUT, …), so that a front end can say so.
func (o *Options) Ignored() []string { return o.ignored }

// DefaultOptions returns cqlsh COPY FROM's defaults.
func DefaultOptions() Options {
	return Options{
		Port:                9042,
		ConnectTimeout:      5 * time.Second,
		RequestTimeout:      10 * time.Second,
		StoreConnectTimeout: source.DefaultConfig().ConnectTimeout,
		StoreTimeout:        source.DefaultConfig().Timeout,
		Consistency:         gocql.LocalOne,
		Dialect:             csvparse.DefaultDialect(),
		Formats:             schema.DefaultFormats(),
		ChunkSize:           5000,
		Workers:             runtime.NumCPU(),
		MaxInFlight:         128,
		Adaptive:            true,
		MinBatchSize:        10,
		MaxBatchSize:        20,
		MaxBatchBytes:       16 << 10,
		RetryWindow:         time.Minute,
		FlushInterval:       time.Second,
		VerifyBuffer:        csvparse.DefaultVerifyBuffer,
		Readers:             DefaultReaders,
		StripeSize:          DefaultStripeSize,
		TTL:                 -1,
		MaxParseErrors:      -1,
		MaxInsertErrors:     1000,
		MaxErrorRecordBytes: csvparse.DefaultKeepTooLong,
		ReportFrequency:     250 * time.Millisecond,
		Repeat:              1,
		SplitSize:           64 << 20,
		Backoff:             50 * time.Millisecond,
		MaxBackoff:          2 * time.Second,
	}
}

// Validate reports every problem with the options at once. It first
// settles the batch sizes as cqlsh users expect: an explicit MAXBATCHSIZE
// below the default MINBATCHSIZE lowers MINBATCHSIZE to it, and an
// explicit MINBATCHSIZE above the default MAXBATCHSIZE raises
// MAXBATCHSIZE to it; only two explicit, contradictory values are an
// error. (Options set as fields rather than through SetOption count as
// explicit unless they equal DefaultOptions'.)
func (o *Options) Validate() error {
	o.settleBatchSizes()
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.Session == nil && len(o.Hosts) == 0 {
		bad("no hosts given")
	}
	if o.Keyspace == "" || o.Table == "" {
		bad("the table must be given as keyspace.table")
	}
	if len(o.Files) == 0 {
		bad("no input files given")
	}
	if err := o.Dialect.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.Formats.Validate(); err != nil {
		errs = append(errs, err)
	}
	positive := []struct {
		name string
		v    int
	}{
		{"CHUNKSIZE", o.ChunkSize}, {"NUMPROCESSES", o.Workers}, {"max-in-flight", o.MaxInFlight},
		{"MINBATCHSIZE", o.MinBatchSize}, {"MAXBATCHSIZE", o.MaxBatchSize},
		{"max-batch-bytes", o.MaxBatchBytes}, {"READERS", o.Readers},
	}
	for _, p := range positive {
		if p.v < 1 {
			bad("%s must be at least 1, got %d", p.name, p.v)
		}
	}
	if o.MinBatchSize > o.MaxBatchSize {
		bad("MINBATCHSIZE (%d) is larger than MAXBATCHSIZE (%d)", o.MinBatchSize, o.MaxBatchSize)
	}
	if o.MaxAttempts < 0 {
		bad("MAXATTEMPTS must not be negative, got %d", o.MaxAttempts)
	}
	if o.DryRun && o.Resume != "" {
		bad("a dry run cannot be resumed: drop --resume or --dry-run")
	}
	if o.SplitCount > 1 && (o.SplitIndex < 0 || o.SplitIndex >= o.SplitCount) {
		bad("--split %d/%d: the index must be from 0 to %d", o.SplitIndex, o.SplitCount, o.SplitCount-1)
	}
	if o.SplitPlan != "" && o.SplitCount <= 1 {
		bad("--split-plan needs --split I/N")
	}
	if o.StripeSize < 1<<10 {
		bad("stripe-size must be at least 1024 bytes, got %d", o.StripeSize)
	}
	if o.SplitSize < 1<<10 {
		bad("split-size must be at least 1024 bytes, got %d", o.SplitSize)
	}
	if o.Repeat < 1 {
		bad("repeat must be at least 1, got %d", o.Repeat)
	}
	if o.Duration < 0 {
		bad("duration must not be negative")
	}
	if o.Resume != "" && (o.Repeat > 1 || o.Duration > 0) {
		bad("--repeat and --duration make a load test, which cannot be resumed: drop --resume")
	}
	if o.RetryWindow <= 0 {
		bad("retry-window must be positive")
	}
	if o.StoreConnectTimeout < 0 {
		bad("store-connect-timeout must be positive (0: the default)")
	}
	if o.StoreTimeout < 0 {
		bad("store-timeout must be positive (0: the default)")
	}
	if o.IngestRate < 0 {
		bad("INGESTRATE must not be negative, got %d", o.IngestRate)
	}
	if o.ReportFrequency <= 0 {
		bad("REPORTFREQUENCY must be positive")
	}
	return errors.Join(errs...)
}

// settleBatchSizes lets one explicit batch size move the other's default.
func (o *Options) settleBatchSizes() {
	if o.MinBatchSize <= o.MaxBatchSize || o.MaxBatchSize < 1 {
		return
	}
	d := DefaultOptions()
	minSet := o.Explicit("minbatchsize") || o.MinBatchSize != d.MinBatchSize
	maxSet := o.Explicit("maxbatchsize") || o.MaxBatchSize != d.MaxBatchSize
	switch {
	case maxSet && !minSet:
		o.MinBatchSize = o.MaxBatchSize
	case minSet && !maxSet:
		o.MaxBatchSize = o.MinBatchSize
	}
}

// ParseConsistency parses a consistency level name such as LOCAL_ONE.
func ParseConsistency(s string) (gocql.Consistency, error) {
	c, err := gocql.ParseConsistencyWrapper(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("unknown consistency level %q", s)
	}
	return c, nil
}

// sourceConfig bounds the object stores' waits as o says.
func (o *Options) sourceConfig() source.Config {
	return source.Config{ConnectTimeout: o.StoreConnectTimeout, Timeout: o.StoreTimeout}
}
