// Package plan answers which machine types to run, at what cost, with a
// proof: the cheapest fleet of a priced catalog's types (package
// datasets/catalog) that holds a snapshot's pods (a run at an instant, a
// Kubernetes cluster's observed run included) or a trace's VMs at its peak,
// beside how far it can be from the cheapest (the configuration LP's bound,
// package optimizer/fleet) and beside the fleet as it is, a Karpenter-style
// provisioner's and the best single type's.
//
// Constraints come from the user's own objects read by the same rules as
// every engine: a Kubernetes snapshot's pods are read again (datasets/k8s)
// beside one prototype node per pool × catalog type × zone, carrying the
// pool's labels and taints and the type's labels (kubernetes.io/arch,
// node.kubernetes.io/instance-type, karpenter.k8s.aws/instance-family,
// karpenter.sh/capacity-type, the zone), so node selectors, required
// affinity, taints and a volume's zone decide which types each pod may run
// on; DaemonSet pods are each new node's overhead on the nodes they would
// run on; the plan is written as a cluster again (the plan's nodes, each
// pod bound to its planned node) and stored as a dataset whose run
// placelab check verifies.
package plan
