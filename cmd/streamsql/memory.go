package main

import (
	"math"
	"runtime/debug"
)

// memoryLimitUsage is the help of run's and serve's --memory-limit.
const memoryLimitUsage = "soft limit on the process's memory, e.g. 512MB or 2GB (0: none); sizes Badger's buffers and the Go heap limit. A pipeline file's SET memory_limit wins (default: 320MB)"

// memorySettings returns the engine settings --memory-limit gives: none
// when the flag is not set.
func memorySettings(limit string) map[string]string {
	if limit == "" {
		return nil
	}
	return map[string]string{"memory_limit": limit}
}

// setMemoryLimit is engine.Options.SetMemoryLimit for run and serve: the
// Go runtime's soft memory limit (as GOMEMLIMIT, which it replaces), none
// for 0.
func setMemoryLimit(bytes int64) {
	if bytes <= 0 {
		bytes = math.MaxInt64
	}
	debug.SetMemoryLimit(bytes)
}
