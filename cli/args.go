package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves a command's flags ahead of its positional arguments,
// so that `placelab ingest huawei FILE --dataset x` works: urfave/cli v2
// stops reading flags at the first positional argument. Global flags
// before the command name and everything after a "--" are left alone.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	// Find the command name, skipping global flags.
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if takesValue(app.Flags, args[i]) && !strings.Contains(args[i], "=") {
			i++
		}
		i++
	}
	if i >= len(args) {
		return args
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return args
	}
	head := append([]string{}, args[:i+1]...)
	rest := args[i+1:]
	// A subcommand keeps its own name first.
	if len(rest) > 0 {
		if sub := cmd.Command(rest[0]); sub != nil {
			head = append(head, rest[0])
			rest = rest[1:]
			cmd = sub
		}
	}
	var flags, pos []string
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		if a == "--" {
			pos = append(pos, rest[k:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			if takesValue(cmd.Flags, a) && !strings.Contains(a, "=") && k+1 < len(rest) {
				flags = append(flags, rest[k+1])
				k++
			}
			continue
		}
		pos = append(pos, a)
	}
	out := append(head, flags...)
	return append(out, pos...)
}

// takesValue reports whether the flag named by arg (-x, --name, --name=v)
// expects a value.
func takesValue(flags []cli.Flag, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	if j := strings.IndexByte(name, '='); j >= 0 {
		name = name[:j]
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}
