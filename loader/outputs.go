package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cqlload/cqlload/source"
)

// A run writes and removes files beside the table: the error files, which
// a fresh run first clears, the checkpoint, replaced by a rename, and
// their companions. Given one of its inputs for one of them (--err-file
// data.csv data.csv, or --err-file part with inputs part.00, part.01 as
// split -d names them), a run deleted the input before reading it. So
// before anything is cleared or written, Run refuses outputs that are
// inputs, by path and by file identity (a link, another spelling).

// InputClashError is a file the run would write or remove that is one of
// its inputs. Nothing was read, written or removed.
type InputClashError struct {
	What   string // the option naming the output: ERRFILE, --resume, …
	Output string // the file the run would write or remove
	Input  string // the input it is
}

func (e *InputClashError) Error() string {
	return fmt.Sprintf("%s would write or remove %s, which is the input %s: give the %s another path", e.What, e.Output, e.Input, e.What)
}

// Output is a file the caller of a run writes, named by the option that
// gives it (Options.OtherOutputs).
type Output struct{ Option, Path string }

// outputFile is a file a run writes or removes; numbered stands for the
// path followed by .2, .3, … (the error files of further headers).
type outputFile struct {
	what, path string
	numbered   bool
}

// outputFiles lists the files a run with o writes or removes, others
// (a summary, a plan) included.
func outputFiles(o *Options, others ...outputFile) []outputFile {
	e := o.ErrFile
	outs := []outputFile{{"ERRFILE", e, false}, {"ERRFILE", e, true}, {"ERRFILE", e + ".log", false}, {"ERRFILE", e + ".lock", false}}
	if r := o.Resume; r != "" {
		outs = append(outs, outputFile{"--resume", r, false}, outputFile{"--resume", r + ".tmp", false},
			outputFile{"--resume", r + ".sent", false}, outputFile{"--resume", r + ".lock", false})
	}
	if o.RateFile != "" {
		outs = append(outs, outputFile{"RATEFILE", o.RateFile, false})
	}
	for _, out := range o.OtherOutputs {
		outs = append(outs, outputFile{out.Option, out.Path, false})
	}
	return append(outs, others...)
}

// checkOutputs refuses outputs that are inputs: a local input whose path
// is an output's (or one of its numbered ones), or that is the same file
// as an output that exists.
func checkOutputs(objects []source.Object, outs []outputFile) error {
	for _, obj := range objects {
		if obj.Size < 0 || source.IsURL(obj.Name) {
			continue // standard input, a pipe, an object in storage
		}
		in, err := filepath.Abs(obj.Name)
		if err != nil {
			continue
		}
		inSt, inErr := os.Stat(obj.Name)
		for _, out := range outs {
			p, err := filepath.Abs(out.path)
			if err != nil {
				continue
			}
			clash := in == p
			if out.numbered {
				rest, ok := strings.CutPrefix(in, p)
				clash = ok && numberedErrFile.MatchString(rest)
			} else if outSt, err := os.Stat(out.path); !clash && err == nil && inErr == nil {
				clash = os.SameFile(inSt, outSt)
			}
			if clash {
				name := out.path
				if out.numbered {
					name = obj.Name
				}
				return &InputClashError{What: out.what, Output: name, Input: obj.Name}
			}
		}
	}
	return nil
}
