// Package characterize runs the workload characterization views
// (Protean §2, Resource Central §3) as a report page (Run), classifies
// utilization series by their period (ClassifyWorkloads, DetectPeriod), and
// evaluates Paragon's classification on stored application matrices.
package characterize
