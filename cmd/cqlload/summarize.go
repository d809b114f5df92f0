package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cqlload/cqlload/internal/redact"
	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/loader"
)

const summarizeUsage = `Usage: cqlload summarize [--summary-json PATH|-] SUMMARY.json...

Merges the --summary-json documents of several runs (the splits of one
load) into one: the counts added up (and checked: rows read = written +
skipped + rejected + unknown + not sent), rows/s over the wall clock from
the first start to the last end, latency percentiles from the merged
histograms. Prints the summary as a run does; the exit status is the worst
of the runs' (fatal > interrupted > aborted > rows rejected > all written),
or 64 when the summaries cannot be merged.
`

// severity orders exit statuses from best to worst, for summarize.
func severity(code int) int {
	switch code {
	case exitOK:
		return 0
	case exitRejected:
		return 1
	case exitAborted:
		return 2
	case exitInterrupted:
		return 3
	case exitFatal:
		return 4
	}
	return 5 // usage, or unknown
}

func summarize(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("cqlload summarize", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("summary-json", "", "also write the merged summary as JSON to this file (- for standard output)")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "cqlload summarize: %v\n%s", err, summarizeUsage)
		return exitUsage
	}
	if *help {
		fmt.Fprint(stdout, summarizeUsage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return exitOK
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "cqlload summarize: no summaries given\n%s", summarizeUsage)
		return exitUsage
	}
	var parts []jsonSummary
	for _, path := range fs.Args() {
		b, err := wholefile.Read(path, "summary", wholefile.MaxSummary)
		if err != nil {
			fmt.Fprintf(stderr, "cqlload summarize: %v\n", err)
			return exitUsage
		}
		var s jsonSummary
		if err := json.Unmarshal(b, &s); err != nil {
			fmt.Fprintf(stderr, "cqlload summarize: %s: %v\n", path, err)
			return exitUsage
		}
		parts = append(parts, s)
	}
	merged, err := mergeSummaries(parts, fs.Args())
	if err == nil {
		err = checkSplits(parts, fs.Args())
	}
	if err != nil {
		fmt.Fprintf(stderr, "cqlload summarize: %v\n", err)
		return exitUsage
	}
	human := stdout
	if *out == "-" {
		human = stderr
	}
	printSummary(human, merged.Summary, nil)
	printReasons(stderr, merged.Summary)
	if *out != "" {
		if err := writeJSON(*out, stdout, redact.New(), merged); err != nil {
			fmt.Fprintf(stderr, "cqlload summarize: %v\n", err)
			return exitFatal
		}
	}
	return merged.ExitStatus
}

// checkSplits checks that summaries of --split runs are those of every
// split of one load, once each: a total that misses a split, or counts
// one twice, must not pass for the load's. Summaries of runs without
// --split merge as they are.
func checkSplits(parts []jsonSummary, names []string) error {
	first := -1
	for i, p := range parts {
		if p.Split != nil {
			first = i
			break
		}
	}
	if first < 0 {
		return nil
	}
	want := parts[first].Split
	seen := make([]string, want.Count)
	for i, p := range parts {
		s := p.Split
		switch {
		case s == nil && p.ExitStatus != exitOK && p.ExitStatus != exitRejected && p.RowsRead+p.RowsResumed == 0:
			// Refused before it knew its split (a plan that does not
			// fit, inputs that cannot be read): not another load.
			return fmt.Errorf("%s is the summary of a run that ended before it loaded anything (exit %d: %s): run that split again once the cause is fixed", names[i], p.ExitStatus, p.Aborted)
		case s == nil:
			return fmt.Errorf("%s is the summary of a run without --split, %s of split %d/%d: not the splits of one load", names[i], names[first], want.Index, want.Count)
		case s.Count != want.Count || s.Load != want.Load || s.Index < 0 || s.Index >= s.Count:
			return fmt.Errorf("%s is split %d/%d of another load than %s (split %d/%d): other inputs or options", names[i], s.Index, s.Count, names[first], want.Index, want.Count)
		case seen[s.Index] != "":
			return fmt.Errorf("%s and %s are both split %d/%d: each split's summary once", seen[s.Index], names[i], s.Index, s.Count)
		}
		seen[s.Index] = names[i]
	}
	var missing []string
	for i, n := range seen {
		if n == "" {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no summary of split %s of %d: the load is not known to be complete (a split that never ran, or was killed before it wrote one)", strings.Join(missing, ", "), want.Count)
	}
	return nil
}

// mergeSummaries adds up the runs' summaries (loader.MergeSummaries);
// the exit status is the worst of the runs'. names label errors.
func mergeSummaries(parts []jsonSummary, names []string) (jsonSummary, error) {
	var m jsonSummary
	sums := make([]loader.Summary, len(parts))
	worst := 0
	for i, p := range parts {
		sums[i] = p.Summary
		if severity(p.ExitStatus) > severity(worst) {
			worst = p.ExitStatus
		}
		m.Version = p.Version
	}
	s, err := loader.MergeSummaries(sums, names)
	if err != nil {
		return m, err
	}
	m.Summary, m.ExitStatus = s, worst
	return m, nil
}
