package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docsUpdateEnv rewrites the generated references instead of failing.
const docsUpdateEnv = "PLACELAB_UPDATE_DOCS"

// docsCompare fails when docs/reference/NAME differs from want, or rewrites
// it when PLACELAB_UPDATE_DOCS=1.
func docsCompare(t *testing.T, name, want, test string) {
	t.Helper()
	path := filepath.Join("..", "docs", "reference", name)
	if os.Getenv(docsUpdateEnv) == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("docs/reference/%s: %v; write it with %s=1 go test ./cli -run %s", name, err, docsUpdateEnv, test)
	}
	if string(got) != want {
		t.Fatalf("docs/reference/%s is stale (%s); regenerate it with\n\t%s=1 go test ./cli -run %s\nand commit it", name, docsFirstDiff(string(got), want), docsUpdateEnv, test)
	}
}

// docsFirstDiff names the first line where got and want part.
func docsFirstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: file has %q, the binary says %q", i+1, docsShort(gl), docsShort(wl))
		}
	}
	return "same lines"
}

// docsShort cuts a line for a failure message.
func docsShort(s string) string {
	if r := []rune(s); len(r) > 100 {
		return string(r[:100]) + "…"
	}
	return s
}

// TestDocsCLIReference: docs/reference/cli.md is every command's --help as
// this binary prints it, and names every command placelab --help lists.
func TestDocsCLIReference(t *testing.T) {
	want, err := docsCLIReference()
	if err != nil {
		t.Fatal(err)
	}
	top, err := docsRun("--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range newApp().Commands {
		if c.Hidden || c.Name == "help" {
			continue
		}
		if !strings.Contains(top, "   "+c.Name) {
			t.Errorf("placelab --help does not list %q", c.Name)
		}
		if !strings.Contains(want, "\n## placelab "+c.Name+"\n") {
			t.Errorf("cli.md has no section for %q", c.Name)
		}
	}
	docsCompare(t, "cli.md", want, "TestDocsCLIReference")
}

// TestDocsCLIReferenceDeterministic: the reference does not depend on the
// environment the test runs in (the flags' environment variables set) or
// on the run.
func TestDocsCLIReferenceDeterministic(t *testing.T) {
	a, err := docsCLIReference()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PLACELAB_DB", "/somewhere/else.duckdb")
	t.Setenv("PLACELAB_MEMORY_LIMIT", "7GB")
	b, err := docsCLIReference()
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatalf("the CLI reference changes with the environment: %s", docsFirstDiff(a, b))
	}
	if wd, err := os.Getwd(); err == nil && strings.Contains(a, wd) {
		t.Fatalf("the CLI reference holds this machine's path %s", wd)
	}
}

// TestDocsFormatsReference: docs/reference/formats.md is `placelab ingest
// help-format` for every format and the inventory file.
func TestDocsFormatsReference(t *testing.T) {
	want, err := docsFormatsReference()
	if err != nil {
		t.Fatal(err)
	}
	docsCompare(t, "formats.md", want, "TestDocsFormatsReference")
}

// TestDocsSchemaReference: docs/reference/schema.md is the embedded
// migrations and the views' header comments.
func TestDocsSchemaReference(t *testing.T) {
	docsCompare(t, "schema.md", docsSchemaReference(), "TestDocsSchemaReference")
}

// TestDocsPerformanceReference: docs/reference/performance.md is the
// committed bench JSON (docs/bench) as docsPerformanceReference writes it.
func TestDocsPerformanceReference(t *testing.T) {
	want, err := docsPerformanceReference(filepath.Join("..", "docs", "bench"))
	if err != nil {
		t.Fatal(err)
	}
	docsCompare(t, "performance.md", want, "TestDocsPerformanceReference")
}
