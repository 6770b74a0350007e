package funcs

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Markdown renders the registry as docs/sql.md's function table: one
// section per family, one row per function with its signatures, aliases,
// strictness and description.
func Markdown() string {
	var b strings.Builder
	b.WriteString("Generated from the funcs registry by `go run ./cmd/streamsql docs`; do not edit. ")
	b.WriteString("*Strict* functions return NULL when any argument is NULL. ")
	b.WriteString("`anyelement` is one kind shared by every such argument; `any` is any kind.\n\n")
	for _, fam := range families {
		fmt.Fprintf(&b, "#### %s\n\n", fam.name)
		b.WriteString("| function | signatures | strict | description |\n|---|---|---|---|\n")
		for _, f := range fam.funcs {
			name := "`" + f.Name + "`"
			if len(f.Aliases) > 0 {
				name += " (also " + strings.Join(quoteAll(f.Aliases), ", ") + ")"
			}
			sigs := make([]string, len(f.Sigs))
			for i, s := range f.Sigs {
				sigs[i] = "`" + signature(s) + "`"
				if f.ReturnsSet() {
					sigs[i] = strings.Replace(sigs[i], "→ ", "→ setof ", 1)
				}
			}
			strict := "no"
			if f.Strict {
				strict = "yes"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, strings.Join(sigs, "<br>"), strict, strings.ReplaceAll(f.Doc, "|", "\\|"))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "EXTRACT and DATE_PART fields: %s. DATE_TRUNC units: %s.\n",
		strings.Join(ExtractUnits, ", "), strings.Join(TruncUnits, ", "))
	return b.String()
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "`" + s + "`"
	}
	return out
}

// signature renders (arg, ...) → result with Postgres's type names.
func signature(s Sig) string {
	args := make([]string, len(s.Args))
	for i, k := range s.Args {
		args[i] = kindName(k)
	}
	if s.Variadic {
		args[len(args)-1] += ", ..."
	}
	return "(" + strings.ReplaceAll(strings.Join(args, ", "), "|", "\\|") + ") → " + kindName(s.Result)
}

// kindName is the Postgres name of a kind in a signature.
func kindName(k types.Kind) string {
	switch k {
	case AnyElement:
		return "anyelement"
	case AnyKind:
		return "any"
	case AnyArray:
		return "anyarray"
	}
	return types.PgName(k)
}
