// Package lpinterval puts every snapshot of a stored run in its LP
// interval (Run): the configuration LP's lower bound and a packing's upper
// bound on the machines the VMs alive need, the packings stored as offline
// runs that placelab check verifies.
package lpinterval
