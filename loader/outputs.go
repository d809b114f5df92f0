package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/loader/internal/runlog"
	"github.com/cqlload/cqlload/source"
)

// A run writes, renames and removes files beside the table: the error
// files, which a fresh run first renames out of the way (a resumed one
// cuts them back), the checkpoint, replaced by a rename, and their
// companions. Given one of its inputs for one of them (--err-file
// data.csv data.csv, or --err-file part with inputs part.00, part.01 as
// split -d names them), a run removed the input before reading it. So
// before anything is moved or written, Run refuses outputs that are
// inputs, by path and by file identity (a link, another spelling).

// Output is a file the caller of a run writes, named by the option that
// gives it (Options.OtherOutputs).
type Output struct{ Option, Path string }

// outputFile is a file a run writes or removes; numbered stands for the
// path followed by .2, .3, … (the error files of further headers).
// replaced: the run removes the file, or renames another over it, so it
// must be a regular file if it exists (see checkReplaceable).
type outputFile struct {
	what, path string
	numbered   bool
	replaced   bool
}

// outputFiles lists the files a run with o writes or removes, others
// (a summary, a plan) included.
func outputFiles(o *Options, others ...outputFile) []outputFile {
	e := o.ErrFile
	outs := []outputFile{
		{what: "ERRFILE", path: e, replaced: true},
		{what: "ERRFILE", path: e, numbered: true, replaced: true},
		{what: "ERRFILE", path: e + ".log", replaced: true},
		{what: "ERRFILE", path: e + ".lock", replaced: true},
	}
	if r := o.Resume; r != "" {
		for _, p := range []string{r, r + ".sent", r + ".lock"} {
			outs = append(outs, outputFile{what: "--resume", path: p, replaced: true})
		}
	}
	if o.RateFile != "" {
		// Appended to: a device or a pipe will do.
		outs = append(outs, outputFile{what: "RATEFILE", path: o.RateFile})
	}
	if o.HistogramLog != "" {
		outs = append(outs, outputFile{what: "HISTOGRAMLOG", path: o.HistogramLog})
	}
	for _, out := range o.OtherOutputs {
		outs = append(outs, outputFile{what: out.Option, path: out.Path})
	}
	return append(outs, others...)
}

// checkOutputs refuses outputs that are inputs: a local input whose path
// is an output's (or one of its numbered ones), or that is the same file
// as an output that exists. Each output is resolved and looked up once,
// and an input is looked up only when some output exists: with 10,000
// small inputs, a Getwd and a stat per input and output took longer than
// loading them.
func checkOutputs(objects []source.Object, outs []outputFile) error {
	type resolved struct {
		outputFile
		abs string
		st  os.FileInfo // nil: it does not exist, or it stands for numbered files
	}
	cwd, cwdErr := os.Getwd()
	absOf := func(p string) (string, bool) {
		if filepath.IsAbs(p) {
			return filepath.Clean(p), true
		}
		if cwdErr != nil {
			return "", false
		}
		return filepath.Join(cwd, p), true
	}
	var res []resolved
	anyExists := false
	for _, out := range outs {
		p, ok := absOf(out.path)
		if !ok {
			continue
		}
		r := resolved{outputFile: out, abs: p}
		if !out.numbered {
			if st, err := os.Stat(out.path); err == nil {
				r.st, anyExists = st, true
			}
		}
		res = append(res, r)
	}
	for _, obj := range objects {
		local, ok := source.LocalPath(obj.Name)
		if obj.Size < 0 || !ok {
			continue // standard input, a pipe, an object in storage
		}
		in, ok := absOf(local)
		if !ok {
			continue
		}
		var inSt os.FileInfo
		if anyExists {
			inSt, _ = os.Stat(local)
		}
		for _, out := range res {
			clash := in == out.abs
			if out.numbered {
				rest, ok := strings.CutPrefix(in, out.abs)
				clash = ok && runlog.NumberedSuffix(rest)
			} else if !clash && out.st != nil && inSt != nil {
				clash = os.SameFile(inSt, out.st)
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

// checkDistinct refuses two outputs of different options that are one
// file, by path (or one of ERRFILE's numbered paths) or as the same
// file when both exist. Outputs written as they are, a device, a pipe
// or one of the process's descriptors (/dev/stdout), may be shared:
// the summary and the rate file may both go to standard output.
func checkDistinct(outs []outputFile) error {
	type file struct {
		outputFile
		abs string
		st  os.FileInfo // nil when it does not exist yet
	}
	var files []file
	for _, out := range outs {
		if wholefile.IsDescriptor(out.path) {
			continue
		}
		st, err := os.Stat(out.path)
		if err == nil && !st.Mode().IsRegular() {
			continue // checkReplaceable refuses those that must be files
		}
		abs, err := filepath.Abs(out.path)
		if err != nil {
			continue
		}
		files = append(files, file{out, abs, st})
	}
	for i, a := range files {
		for _, b := range files[i+1:] {
			if a.what == b.what {
				continue // one option's own files, distinct by suffix
			}
			if a.numbered || b.numbered {
				n, other := a, b
				if b.numbered {
					n, other = b, a
				}
				if rest, ok := strings.CutPrefix(other.abs, n.abs); ok && runlog.NumberedSuffix(rest) {
					// Named by the number the error file would take.
					return &OutputClashError{What: n.what, Path: other.path, OtherWhat: other.what, OtherPath: other.path}
				}
				continue
			}
			if a.abs == b.abs || a.st != nil && b.st != nil && os.SameFile(a.st, b.st) {
				return &OutputClashError{What: a.what, Path: a.path, OtherWhat: b.what, OtherPath: b.path}
			}
		}
	}
	return nil
}

// checkReplaceable refuses outputs that the run would move, remove or
// rename over while they are not regular files: --err-file /dev/null,
// removed as a stale error file, deleted the device (as root), and
// --resume /dev/null renamed a checkpoint over it; an empty directory
// given as ERRFILE was deleted too.
func checkReplaceable(outs []outputFile) error {
	for _, out := range outs {
		if !out.replaced || out.numbered {
			continue
		}
		if wholefile.IsDescriptor(out.path) {
			return &OutputKindError{What: out.what, Path: out.path, Descriptor: true}
		}
		st, err := os.Stat(out.path)
		if err != nil || st.Mode().IsRegular() {
			continue // none yet, or a file (through a link or not)
		}
		return &OutputKindError{What: out.what, Path: out.path, Mode: st.Mode()}
	}
	return nil
}

// settleErrFile moves a default ERRFILE out of the inputs' way: loading a
// fixed error file again with the same command (import_ks_t.err, which
// docs/failures.md promises works) takes the default error file for an input.
// The run's error files then go to import_ks_t.retry.err (retry2, …: the
// first name no input takes), a name that depends only on the inputs, so
// a resumed run picks the same. A given ERRFILE is left for checkOutputs
// to judge.
func (l *Loader) settleErrFile(objects []source.Object) error {
	if !l.defaultErrFile {
		return nil
	}
	clashes := func(e string) bool {
		o := Options{ErrFile: e}
		return checkOutputs(objects, outputFiles(&o)) != nil
	}
	e := l.opts.ErrFile
	if !clashes(e) {
		return nil
	}
	base := strings.TrimSuffix(e, ".err")
	for i := 1; i <= 100; i++ {
		alt := base + ".retry.err"
		if i > 1 {
			alt = fmt.Sprintf("%s.retry%d.err", base, i)
		}
		if !clashes(alt) {
			l.opts.ErrFile = alt
			l.errs.SetPath(alt)
			return checkReplaceable(outputFiles(&l.opts))
		}
	}
	return nil // checkOutputs reports the clash
}
