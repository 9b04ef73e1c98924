package main

import (
	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/analysis/replay/outage"
)

// availabilityFlags are the availability settings of a run (issue 27),
// shared by every command that replays.
func availabilityFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "failures", Value: "none", Usage: "machine and rack failures: `SPEC` none, default, or key=value overrides (see below)"},
		&cli.StringFlag{Name: "failure-file", Usage: "replay your own incident history: a CSV or Parquet `FILE` with columns t_s, machine or rack, duration_s, kind (reboot|hard)"},
		&cli.StringFlag{Name: "maintenance", Value: "none", Usage: "planned host OS updates rolled through the update domains: `SPEC` none, default, or every=30d,ud-minutes=30"},
		&cli.IntFlag{Name: "fault-domains", Usage: "each tenant's VMs form an availability set over `F` fault domains (racks; 0 = off, Azure: at most 3)"},
		&cli.IntFlag{Name: "update-domains", Usage: "... and over `U` update domains (machine update domains; 0 = off, Azure: at most 20)"},
	}
}

// availabilityHelp is the part of --help that explains the failure and
// maintenance specs.
const availabilityHelp = `
Availability (every policy alike, one agent or many):
` + outage.SpecHelp + `
` + outage.MaintenanceSpecHelp + `
With --fault-domains F / --update-domains U, VM i of a tenant (in arrival order) gets
fault domain i mod F and update domain i mod U; VMs in different fault domains never
share a rack, VMs in different update domains never share a machine update domain.
A hard failure's VMs become one heal request per tenant (the healing buffer applies),
high priority first; a VM that cannot be healed is a healing failure.`

// availabilitySpec reads the availability flags into spec.
func availabilitySpec(c *cli.Context, spec *analysis.Spec) {
	spec.Failures = c.String("failures")
	spec.FailureFile = c.String("failure-file")
	spec.Maintenance = c.String("maintenance")
	spec.FaultDomains = int32(c.Int("fault-domains"))
	spec.UpdateDomains = int32(c.Int("update-domains"))
}
