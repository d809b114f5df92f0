//go:build !unix

package wholefile

import "os"

// Descriptor: no path names a descriptor here.
func Descriptor(string) (*os.File, bool, error) { return nil, false, nil }

func descriptorOf(string) (int, bool) { return 0, false }
