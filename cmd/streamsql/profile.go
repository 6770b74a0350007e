package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profiles holds the paths of the pprof profiles `run` writes (empty:
// none), so a pipeline's cost can be looked at with go tool pprof.
type profiles struct {
	cpu, mem string
}

// start begins the CPU profile; the returned function ends it.
func (p profiles) start() (stop func() error, err error) {
	var cpu *os.File
	if p.cpu != "" {
		if cpu, err = os.Create(p.cpu); err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		if err = pprof.StartCPUProfile(cpu); err != nil {
			_ = cpu.Close()
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
	}
	return func() error {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				return fmt.Errorf("cpu profile: %w", err)
			}
		}
		return nil
	}, nil
}

// atEnd writes the heap profile when the run has ended but before the
// final checkpoint and Close, so its in-use figures show the state the
// pipeline holds, and its allocation figures the whole run's.
func (p profiles) atEnd() error {
	if p.mem == "" {
		return nil
	}
	return writeHeapProfile(p.mem)
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	runtime.GC() // up-to-date in-use figures
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		_ = f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	return nil
}
