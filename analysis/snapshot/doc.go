// Package snapshot rebuilds a stored run's state at an instant (Load), the
// one state every planner starts from: every placement whole with its
// constraints and domains, the run's settings, the Pending VMs (placed by
// PlacePending on the run's rules) and names; StorePlan stores a plan
// against it as an offline run that placelab check verifies.
package snapshot
