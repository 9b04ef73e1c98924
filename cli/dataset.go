package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	store "placelab/sql"
)

// replayDatasetFlag is --dataset of a command that replays a dataset: no
// fixed default, datasetArg picks the only one loaded.
func replayDatasetFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, DefaultText: "the only dataset loaded with machines",
		Usage: "dataset `NAME` to replay (it needs machines); needed when several are loaded"}
}

// pendingDataset is --dataset, or a stand-in name under which a spec is
// checked before the database is opened and datasetArg resolves it.
func pendingDataset(c *cli.Context) string {
	if c.IsSet("dataset") {
		return c.String("dataset")
	}
	return "(--dataset)"
}

// datasetArg is --dataset or, unset, the only dataset loaded that a replay
// can run on; with none or several it says so in one line.
func datasetArg(c *cli.Context, db *store.DB) (string, error) {
	if c.IsSet("dataset") {
		return c.String("dataset"), nil
	}
	names, err := analysis.ReplayableDatasets(c.Context, db)
	if err != nil {
		return "", err
	}
	switch len(names) {
	case 1:
		return names[0], nil
	case 0:
		return "", errors.New("--dataset: no dataset with machines is loaded (placelab generate makes the synthetic zone; placelab ingest loads yours)")
	}
	shown := names
	if len(shown) > 8 {
		shown = append(slices.Clone(shown[:8]), "…")
	}
	return "", fmt.Errorf("--dataset: %d datasets with machines are loaded (%s): name one", len(names), strings.Join(shown, ", "))
}

// atText writes a snapshot instant: "2026-11-02T13:41:13Z (t=106873s)"
// when the dataset's times have an origin (stamp, RFC 3339: a Kubernetes
// cluster's), else "t=106873s".
func atText(t float64, stamp string) string {
	if stamp == "" {
		return fmt.Sprintf("t=%.0fs", t)
	}
	return fmt.Sprintf("%s (t=%.0fs)", stamp, t)
}
