// Package overview builds the report's overview page (Page): datasets,
// inventory, workload, stored replays inside their LP interval, the
// studies' runs and the planner's stored plans.
package overview
