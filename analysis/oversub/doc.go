// Package oversub replays Resource Central's §6.2 oversubscription arms
// (Run) and sweeps the probability-of-violation placement over demand
// curves (ViolationSweep).
package oversub
