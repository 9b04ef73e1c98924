// Package timing times the allocator: the same requests from the same
// starting state through Protean with the cache on and off (CompareCache)
// and at a production zone's size, every part a user waits for timed, the
// decisions compared for equality. placelab bench allocator and the
// inventory-scaling experiment both run it.
package timing
