// Package runlog holds the files a run keeps on disk besides the table:
// the checkpoint (--resume FILE) and its format, the counter journal
// (FILE.sent) of updates about to be sent, the error files (ERRFILE,
// its numbered files and its log) that rejected rows are written to, and
// the lock files that keep two runs off one checkpoint or error file.
//
// Only package loader imports it, from its ledger (which writes the
// checkpoint, the journal and the error files) and its run (which takes
// the locks and decides what a checkpoint found means). It never imports loader: its
// refusals are its own error types (errors.go), which the loader reports
// as its *ResumeError and *LockedError.
package runlog
