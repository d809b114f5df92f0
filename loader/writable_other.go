//go:build !unix

package loader

// writable is not checked here: the first write says.
func writable(string) error { return nil }
