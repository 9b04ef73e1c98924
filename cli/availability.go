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
		&cli.StringFlag{Name: "failures", Value: "none", Usage: settingUsage("failures")},
		&cli.StringFlag{Name: "failure-file", Usage: settingUsage("failure-file")},
		&cli.StringFlag{Name: "maintenance", Value: "none", Usage: settingUsage("maintenance")},
		&cli.IntFlag{Name: "fault-domains", Usage: settingUsage("fault-domains")},
		&cli.IntFlag{Name: "update-domains", Usage: settingUsage("update-domains")},
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
