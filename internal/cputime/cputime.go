// Package cputime measures CPU time where the platform lets it: Of, the
// CPU a piece of work took (the loader's split search reports it), and
// Process, the CPU the whole process has used (the benchmark's ceiling
// and split runs).
package cputime
