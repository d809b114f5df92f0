// Package limit provides adaptive concurrency limits: one Limiter per
// node decides how many write requests are kept in flight to it.
package limit
