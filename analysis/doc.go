// Package analysis joins the store and the engines: it builds report pages
// from views, and (in later stages) replays traces through the allocators
// and runs experiments.
package analysis
