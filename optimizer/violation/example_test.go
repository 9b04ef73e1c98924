package violation_test

import (
	"context"
	"fmt"
	"time"

	"placelab/optimizer/violation"
)

// Two classes of past tenants, disk only: class "small" grows to 25 or 60
// GB, class "big" to 70 GB. A node with a 100 GB threshold holds one "big"
// tenant placed 5 steps ago that has used 40 GB so far; how likely is a
// violation if a new "small" tenant joins? Only the 60 GB curve does it:
// about one repetition in two.
func ExampleProbViolation() {
	curve := func(class string, lifetime int, initial, peak float32) violation.Curve {
		c := violation.Curve{Class: class, Step: 10 * time.Minute}
		c.Demand[violation.Disk] = make([]float32, lifetime)
		for d := range lifetime {
			c.Demand[violation.Disk][d] = initial + (peak-initial)*float32(min(d, 4))/4
		}
		return c
	}
	repo, err := violation.NewRepository([]violation.Curve{
		curve("small", 50, 5, 25), curve("small", 50, 5, 60),
		curve("big", 80, 20, 70), curve("big", 3, 70, 70), // too short for age 5
	})
	if err != nil {
		panic(err)
	}
	node := []violation.Tenant{
		{ID: 1, Class: "big", Age: 5, ObservedMax: violation.Vec{violation.Disk: 40}},
		{ID: 2, Class: "small"},
	}
	limit := violation.Vec{violation.CPU: 1, violation.Memory: 1, violation.Disk: 100}
	p := violation.ProbViolation(repo, node, limit, violation.RequestSeed(1, 1), violation.DefaultRepetitions)
	fmt.Printf("Pr_violation = %.2f\n", p)
	fmt.Printf("without the new tenant = %.2f\n", violation.ProbViolation(repo, node[:1], limit, 1, 0))
	// Output:
	// Pr_violation = 0.53
	// without the new tenant = 0.00
}

// A default experiment at a small scale: every policy sees the same tenant
// sequences.
func ExampleSimulate() {
	repo, _ := violation.NewRepository(violation.Synthetic(1, 600))
	tenants := violation.Synthetic(2, 600)
	cfg := violation.DefaultSimConfig()
	cfg.Nodes, cfg.Hours, cfg.Seeds = 10, 48, 2
	policies, _ := violation.NewPolicies([]string{"prv-worstfit", "worstfit-max"}, repo, violation.PolicyParams{})
	res, err := violation.Simulate(context.Background(), repo, tenants, cfg, policies, nil)
	if err != nil {
		panic(err)
	}
	for _, p := range res.Policies {
		fmt.Printf("%s: %d repetitions\n", p.Policy, len(p.PerSeed))
	}
	// Output:
	// prv-worstfit: 2 repetitions
	// worstfit-max: 2 repetitions
}
