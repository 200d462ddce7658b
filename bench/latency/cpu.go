package latency

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time the process has used so far, user and
// system, all its threads; 0 where the system cannot say.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
