//go:build !unix

package wholefile

import "os"

// Descriptor: no path names a descriptor here.
func Descriptor(string) (*os.File, bool, error) { return nil, false, nil }

// IsDescriptor: no path names a descriptor here.
func IsDescriptor(string) bool { return false }
