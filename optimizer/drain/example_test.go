package drain_test

import (
	"fmt"

	"placelab/optimizer/drain"
)

// Three half-empty nodes and one pod that may run only where it is: Plan
// drains one node onto another and keeps the pinned pod's node; Explain
// says why that node stays.
func ExamplePlan() {
	p := &drain.Problem{
		DimNames: []string{"cores", "memory"},
		Zones:    []string{"a"},
	}
	for _, name := range []string{"n1", "n2", "n3"} {
		p.Nodes = append(p.Nodes, drain.Node{Name: name, Free: []float64{4, 16}, Cost: 4, Removable: true, Schedulable: true})
	}
	p.Pods = []drain.Pod{
		{Name: "web-1", Demand: []float64{2, 4}, Node: 0, Group: -1},
		{Name: "web-2", Demand: []float64{1, 4}, Node: 1, Group: -1},
		{Name: "db", Demand: []float64{2, 8}, Node: 2, Group: -1,
			AffinityOK: []bool{false, false, true}, AffinityDesc: "nodeSelector disk=nvme"},
	}
	plan, err := drain.Plan(p, drain.Options{})
	if err != nil {
		panic(err)
	}
	for _, mv := range plan.Moves {
		fmt.Printf("move %s: %s → %s\n", p.Pods[mv.Pod].Name, p.Nodes[mv.From].Name, p.Nodes[mv.To].Name)
	}
	fmt.Println("removed:", len(plan.Removed), "kept:", plan.Kept, "greedy:", plan.Greedy)
	fmt.Println(drain.Explain(p, 2).Text)
	// Output:
	// move web-2: n2 → n1
	// removed: 1 kept: 2 greedy: 1
	// Node n3 cannot be drained: pod db (2 cores, 8 memory) has nowhere to go. Of the 2 other nodes, 2 excluded by affinity (nodeSelector disk=nvme).
}

// twoZones is four 8-core nodes in two zones, three replicas with
// anti-affinity (one per node) and a batch pod.
func twoZones() *drain.Problem {
	p := &drain.Problem{DimNames: []string{"cores", "memory"}, Zones: []string{"a", "b"}}
	for j, name := range []string{"a1", "a2", "b1", "b2"} {
		p.Nodes = append(p.Nodes, drain.Node{Name: name, Free: []float64{8, 32}, Zone: j / 2, Cost: 8, Removable: true, Schedulable: true})
	}
	for j := range 3 {
		p.Pods = append(p.Pods, drain.Pod{Name: fmt.Sprintf("api-%d", j), Demand: []float64{2, 4}, Node: j, Group: 1, MaxPerNode: 1})
	}
	p.Pods = append(p.Pods, drain.Pod{Name: "batch", Demand: []float64{6, 8}, Node: 3, Group: -1})
	return p
}

// Greedy drains a1 (fewest pods, least used first; ties by Cost, then
// index): its replica cannot join another replica, and goes to b2.
func ExampleGreedy() {
	p := twoZones()
	g := drain.Greedy(p, drain.Options{})
	for _, n := range g.Removed {
		fmt.Println("removed", p.Nodes[n].Name)
	}
	for _, mv := range g.Moves {
		fmt.Printf("%s → %s\n", p.Pods[mv.Pod].Name, p.Nodes[mv.To].Name)
	}
	// Output:
	// removed a1
	// api-0 → b2
}

// Repack needs three nodes: the replicas want three.
func ExampleRepack() {
	p := twoZones()
	assign, err := drain.Repack(p)
	if err != nil {
		panic(err)
	}
	used := map[int]bool{}
	for _, n := range assign {
		used[n] = true
	}
	fmt.Println("nodes used:", len(used), "check:", drain.Check(p, assign, nil))
	// Output:
	// nodes used: 3 check: <nil>
}

// Check names the pod, the node and the rule.
func ExampleCheck() {
	p := twoZones()
	err := drain.Check(p, []int{0, 0, 2, 3}, nil)
	fmt.Println(err)
	// Output:
	// drain: constraint violated: pod 0 "api-0" on node 0 "a1": anti-affinity: 2 pods of group 1 > MaxPerNode 1
}
