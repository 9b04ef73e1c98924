package k8s_test

import (
	"fmt"

	"placelab/datasets/k8s"
)

// Load a support bundle's cluster-resources folder: nodes, pods, and the
// ReplicaSet and Job objects that name the pods' top-level owners.
func ExampleLoad() {
	c, err := k8s.Load("testdata/bundle")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range c.Nodes {
		fmt.Printf("node %s zone %s: %.2f cores, %.2f GB\n", n.Name, n.Zone, n.Allocatable.Cores, n.Allocatable.MemoryGB)
	}
	for _, p := range c.Pods {
		fmt.Printf("pod %s/%s on %s: tenant %s, %.2f cores\n", p.Namespace, p.Name, c.Nodes[p.Node].Name, p.Tenant, p.Requests.Cores)
	}
	fmt.Printf("%d files, %d running, %d warnings\n", c.Report.Files, c.Report.PodsRunning, len(c.Report.Warnings))
	// Output:
	// node worker-1 zone us-east-1a: 3.92 cores, 14.23 GB
	// node worker-2 zone us-east-1b: 3.92 cores, 14.23 GB
	// pod ns1/api-6b7f9c8d4-aaaaa on worker-1: tenant ns1/Deployment/api-server, 0.50 cores
	// pod ns1/sync-28000000-bbbbb on worker-2: tenant ns1/CronJob/sync, 1.00 cores
	// pod ns2/cache-0 on worker-2: tenant ns2/StatefulSet/cache, 0.25 cores
	// pod ns2/debug on worker-1: tenant ns2/Pod/debug, 0.00 cores
	// 7 files, 4 running, 2 warnings
}
