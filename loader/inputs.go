package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cqlload/cqlload/internal/fsutil"
	"github.com/cqlload/cqlload/source"
)

// A directory or a glob lists what is in it, and a run writes its error
// files beside the table's inputs more often than not (cqlsh's default
// ERRFILE is in the working directory): `cqlload --table ks.t .` run a
// second time read the first run's error file and its log as data, and
// a log line with the table's number of commas became a row no input
// holds. So a listed input (not one named) that is a file of this run,
// or an error file of an earlier run with the same ERRFILE, is left out,
// and the summary says so. A named one is the user's choice: a fixed
// error file loaded again (see settleErrFile).

// errCompanions follows an error file's path in the names of its
// companions: a further header's numbered file, the log, the name an
// earlier run's file was kept under (runlog.ErrFiles.Keep), the lock.
const errCompanions = `(\.[0-9]+)?(\.log)?(\.[0-9]{8}_[0-9]{6}(_[0-9]+)?)?(\.lock)?`

// errFileNames matches the absolute paths of the error files of runs
// with ERRFILE errFile (as given, before --split adds its index) and of
// their companions: with isDefault the names settleErrFile moves it to,
// with split those of every split.
func errFileNames(errFile string, isDefault, split bool) (*regexp.Regexp, error) {
	abs, err := filepath.Abs(errFile)
	if err != nil {
		return nil, err
	}
	ext := filepath.Ext(abs)
	stem := regexp.QuoteMeta(strings.TrimSuffix(abs, ext))
	if isDefault {
		stem += `(\.retry[0-9]*)?`
	}
	if split {
		stem += `(\.[0-9]+)?`
	}
	return regexp.Compile("^" + stem + regexp.QuoteMeta(ext) + errCompanions + "$")
}

// leaveOutOwn returns objects without the listed ones that are files of
// a run with o, whose ERRFILE, before --split adds its index, is errFile
// (isDefault: not given), or one of extra; leftOut names those, each
// with why.
func leaveOutOwn(objects []source.Object, o *Options, errFile string, isDefault bool, extra ...outputFile) (kept []source.Object, leftOut []string, err error) {
	errNames, err := errFileNames(errFile, isDefault, o.SplitCount > 1)
	if err != nil {
		return nil, nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(cwd, p)
	}
	// The run's other files, looked up once: a directory may list
	// thousands of inputs.
	type own struct {
		what, path string
		st         os.FileInfo // nil when it does not exist yet
	}
	var others []own
	outs := outputFiles(o, extra...)
	if p := o.SplitPlan; p != "" {
		outs = append(outs, outputFile{what: "--split-plan", path: p})
	}
	exist := false
	for _, out := range outs {
		if out.numbered || out.what == "ERRFILE" {
			continue // errNames has them
		}
		f := own{what: out.what, path: abs(out.path)}
		f.st, _ = os.Stat(out.path)
		exist = exist || f.st != nil
		others = append(others, f)
	}
	kept = make([]source.Object, 0, len(objects))
	for _, obj := range objects {
		local, ok := source.LocalPath(obj.Name)
		if !obj.Listed || obj.Size < 0 || !ok {
			kept = append(kept, obj)
			continue
		}
		path, why := abs(local), ""
		if errNames.MatchString(path) {
			why = "ERRFILE"
		}
		var st os.FileInfo
		if exist {
			st, _ = os.Stat(local) // for links and other spellings
		}
		for _, f := range others {
			if why != "" {
				break
			}
			if f.path == path || st != nil && f.st != nil && os.SameFile(st, f.st) {
				why = f.what
			}
		}
		if why == "" {
			kept = append(kept, obj)
			continue
		}
		leftOut = append(leftOut, obj.Name+" ("+why+")")
	}
	if len(kept) == 0 {
		return nil, leftOut, fmt.Errorf("no input left: the directories and globs list only this run's own files (%s)", strings.Join(leftOut, ", "))
	}
	return kept, leftOut, nil
}

// checkInputsOnce refuses a file that is among the inputs twice: local
// files (file:// URLs too) by identity (by device and inode where there
// are such, else among files of one size), objects in storage by URL.
func checkInputsOnce(objects []source.Object) error {
	type seen struct {
		name string
		st   os.FileInfo
	}
	byKey := map[any]string{}
	bySize := map[int64][]seen{}
	urls := map[string]bool{}
	for _, obj := range objects {
		local, ok := source.LocalPath(obj.Name)
		switch {
		case obj.Size < 0:
			continue // standard input, which can be given once anyway, or a pipe
		case !ok:
			if urls[obj.Name] {
				return &InputTwiceError{First: obj.Name, Second: obj.Name}
			}
			urls[obj.Name] = true
			continue
		}
		st, err := os.Stat(local)
		if err != nil {
			continue // reading it will say what is wrong
		}
		if key, ok := fsutil.FileKey(st); ok {
			if first, dup := byKey[key]; dup {
				return &InputTwiceError{First: first, Second: obj.Name}
			}
			byKey[key] = obj.Name
			continue
		}
		for _, f := range bySize[st.Size()] {
			if os.SameFile(f.st, st) {
				return &InputTwiceError{First: f.name, Second: obj.Name}
			}
		}
		bySize[st.Size()] = append(bySize[st.Size()], seen{obj.Name, st})
	}
	return nil
}
