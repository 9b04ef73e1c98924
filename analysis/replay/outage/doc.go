// Package outage makes the machine outages an availability replay applies:
// unplanned failures drawn from a seeded failure model (Generate), planned
// host OS updates one update domain at a time (Maintenance.Windows), and a
// user's own incident history (FromRows, fed by datasets.ReadFailureFile).
//
//	Model (ParseModel) ──Generate──┐
//	Maintenance ─────────Windows───┼──▶ []Outage sorted by (Start, Machine) ──▶ replay
//	failure file ─datasets─FromRows┘
//
// An Outage is one machine down over [Start, Start+Duration). Its Kind says
// what happens to the machine's VMs: a Reboot or a Planned update keeps them in
// place, down for the outage; a Hard failure turns them into heal requests,
// down for the model's healing delay before they run again elsewhere. A rack
// (fault-domain) failure is one Hard outage per machine of the rack, all with
// the rack's index, start and duration.
//
// The package is pure: it imports the standard library and placelab/optimizer
// only, so the replay, a notebook or a test can use it without DuckDB.
package outage
