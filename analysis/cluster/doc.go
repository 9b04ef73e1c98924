// Package cluster studies a Kubernetes cluster's run: its snapshot as a
// drain problem (LoadSnapshot, SnapshotOf), the LP interval on the nodes its
// pods need (Bound), the fit of a node like another and a pool's fewest
// nodes (SnapshotFit, PoolFewest), and placelab's policies beside the real
// kube-scheduler (Compare, RunKubeScheduler, JudgeKubeFilters).
package cluster
