//go:build !unix

package loader

import "time"

// processCPU cannot be read here (no getrusage): the split-finding cost is
// then reported as wall time (see Loader.Run).
func processCPU() time.Duration { return 0 }
