package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// versionCmd prints the line `streamsql --version` prints: versionString
// of this binary.
func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the module version and the VCS revision this binary was built from",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), cmd.Root().Version)
		},
	}
}

// versionString describes a build from the information the go command
// stamps into a binary: the main module's version ("(devel)" for a build
// from a checkout, a tag for `go install ...@v1.2.3`), the VCS revision
// and commit time, "modified" when the tree had uncommitted changes, and
// the Go version.
func versionString(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return "streamsql (no build information)"
	}
	vcs := map[string]string{}
	for _, s := range bi.Settings {
		vcs[s.Key] = s.Value
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	parts := []string{"streamsql", version}
	if rev := vcs["vcs.revision"]; rev != "" {
		parts = append(parts, "revision", rev)
		if t := vcs["vcs.time"]; t != "" {
			parts = append(parts, "("+t+")")
		}
		if vcs["vcs.modified"] == "true" {
			parts = append(parts, "modified")
		}
	} else {
		parts = append(parts, "revision unknown")
	}
	return strings.Join(append(parts, bi.GoVersion), " ")
}
