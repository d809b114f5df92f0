package loader

import (
	"path/filepath"
	"testing"
)

// TestShapeOptionsErrFileAbsolute: the checkpoint names the error file
// by its absolute path, so that a resume started in another directory,
// where a file of the same relative name belongs to another load, is
// refused rather than cutting that file back and appending to it.
func TestShapeOptionsErrFileAbsolute(t *testing.T) {
	o := DefaultOptions()
	o.ErrFile = "import_ks_t.err"
	a := shapeOptions(&o, 1<<20)["errfile"]
	t.Chdir(t.TempDir())
	b := shapeOptions(&o, 1<<20)["errfile"]
	if !filepath.IsAbs(a) || a == b {
		t.Errorf("errfile in two directories: %q and %q, want two absolute paths", a, b)
	}
}
