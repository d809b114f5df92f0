package loader

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestClassifyRun(t *testing.T) {
	canceled := fmt.Errorf("interrupted by SIGINT: %w", context.Canceled)
	tests := []struct {
		name string
		sum  Summary
		err  error
		want Class
	}{
		{"all written", Summary{Progress: Progress{RowsWritten: 3}}, nil, ClassOK},
		{"rows skipped by an option", Summary{Progress: Progress{RowsSkipped: 2}}, nil, ClassOK},
		{"parse rejects", Summary{Progress: Progress{RowsFailedParse: 1}}, nil, ClassRejected},
		{"insert rejects", Summary{Progress: Progress{RowsFailedInsert: 1}}, nil, ClassRejected},
		{"unknown outcomes", Summary{Progress: Progress{RowsUnknown: 1}}, nil, ClassRejected},
		{"not sent", Summary{Progress: Progress{RowsNotSent: 1}}, nil, ClassRejected},
		{"a resumed run's error files", Summary{ErrFiles: []string{"e.err"}}, nil, ClassRejected},
		{"MAXPARSEERRORS", Summary{}, &AbortError{Reason: "too many"}, ClassAborted},
		{"fatal abort", Summary{}, &AbortError{Reason: "silent", Fatal: true}, ClassFatal},
		{"wrapped abort", Summary{}, fmt.Errorf("x: %w", &AbortError{Reason: "too many"}), ClassAborted},
		{"any other error", Summary{Progress: Progress{RowsWritten: 1}}, errors.New("no such table"), ClassFatal},
		{"ResumeError", Summary{}, &ResumeError{Reason: "r"}, ClassUsage},
		{"SplitPlanError", Summary{}, &SplitPlanError{Path: "p", Reason: "r"}, ClassUsage},
		{"SplitError", Summary{}, &SplitError{Reason: "r"}, ClassUsage},
		{"InputClashError", Summary{}, &InputClashError{What: "ERRFILE"}, ClassUsage},
		{"OutputKindError", Summary{}, &OutputKindError{What: "ERRFILE"}, ClassUsage},
		{"InputTwiceError", Summary{}, &InputTwiceError{First: "a", Second: "a"}, ClassUsage},
		{"StampsError", Summary{}, &StampsError{File: "f"}, ClassUsage},
		{"wrapped ResumeError", Summary{}, fmt.Errorf("x: %w", &ResumeError{Reason: "r"}), ClassUsage},
		{"LockedError", Summary{}, &LockedError{Path: "p"}, ClassFatal},
		{"OutputClashError", Summary{}, &OutputClashError{What: "a"}, ClassFatal},
		{"HeaderError", Summary{}, &HeaderError{File: "f", Err: errors.New("e")}, ClassFatal},
		{"context.Canceled", Summary{}, context.Canceled, ClassInterrupted},
		{"canceled, wrapped", Summary{Progress: Progress{RowsFailedParse: 1}}, canceled, ClassInterrupted},
		{"canceled over an abort", Summary{}, errors.Join(&AbortError{Reason: "r"}, canceled), ClassInterrupted},
		{"a refusal over an interruption", Summary{}, errors.Join(canceled, &StampsError{File: "f"}), ClassUsage},
		{"a refusal behind a fatal abort", Summary{}, errors.Join(&AbortError{Fatal: true}, &SplitError{}), ClassUsage},
	}
	for _, tt := range tests {
		if got := Classify(tt.sum, tt.err); got != tt.want {
			t.Errorf("%s: Classify = %v, want %v", tt.name, got, tt.want)
		}
	}
	if s := ClassUsage.String(); s != "usage" {
		t.Errorf("ClassUsage.String() = %q", s)
	}
}
