//go:build !unix

package cqlsim

// resourceUsage reports nothing where getrusage does not exist (Windows):
// /stats shows zeros for the process's CPU time and peak RSS.
func resourceUsage() (user, system, maxRSSMiB float64) { return 0, 0, 0 }
