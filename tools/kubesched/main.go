// Command kubesched runs the real Kubernetes scheduler framework
// (k8s.io/kubernetes, default profile) in-process, without an API server,
// over the nodes and pods of a JSON file, and prints where each pod went.
//
//	kubesched [-v N] [-notime] [-seed N] [-mode schedule|filter] input.json|-
//
// See README.md for the input and output formats.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"

	"k8s.io/klog/v2"

	"placelab/tools/kubesched/sim"
)

func main() {
	os.Exit(run())
}

func run() int {
	fs := flag.NewFlagSet("kubesched", flag.ContinueOnError)
	verbosity := fs.Int("v", 0, "klog verbosity (klog writes to stderr)")
	noTime := fs.Bool("notime", false, `write "seconds": 0, so that equal inputs give byte-identical output`)
	seed := fs.String("seed", "", "override the input's seed")
	mode := fs.String("mode", "", `override the input's mode ("schedule" or "filter")`)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: kubesched [flags] input.json|-\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}

	// klog: stderr only, at the given verbosity.
	kfs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(kfs)
	_ = kfs.Set("logtostderr", "true")
	_ = kfs.Set("v", strconv.Itoa(*verbosity))
	defer klog.Flush()

	var data []byte
	var err error
	if path := fs.Arg(0); path == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubesched:", err)
		return 1
	}
	var in sim.Input
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "kubesched: decode input:", err)
		return 1
	}
	if *seed != "" {
		if in.Seed, err = strconv.ParseUint(*seed, 10, 64); err != nil {
			fmt.Fprintln(os.Stderr, "kubesched: -seed:", err)
			return 2
		}
	}
	if *mode != "" {
		in.Mode = *mode
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out, err := sim.Run(ctx, &in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubesched:", err)
		return 1
	}
	if *noTime {
		out.Seconds = 0
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "kubesched:", err)
		return 1
	}
	return 0
}
