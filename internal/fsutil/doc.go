// Package fsutil holds the file-system helpers that differ by operating
// system, or that more than one file of the loader needs: a file's
// identity (FileKey), whether a path may be written (Writable), the
// advisory lock of a lock file (TryLock, Unlock), an absolute path
// (Abs) and a probe of a directory (ProbeDir).
//
// Package loader and its internal packages (loader/internal/runlog)
// import it; it imports nothing of the project's.
package fsutil
