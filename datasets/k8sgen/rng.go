package k8sgen

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"k8s.io/apimachinery/pkg/types"
)

// stream returns a generator seeded by (seed, name). Every random choice of
// the package draws from a stream named after what it decides ("nodes",
// "tie/ns/pod", …), so a new choice in one place never shifts another, and
// a placement can be replayed from the seed and the pod's name alone.
func stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// nameAlphabet is the alphabet Kubernetes draws generated name suffixes and
// template hashes from (no vowels, no 0/1/3: no words, no look-alikes).
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// Lengths of generated names, as the controllers make them.
const (
	suffixLen = 5  // generateName suffix: <rs>-x7k2p
	hashLen   = 10 // pod-template-hash and controller-revision-hash
)

// randString returns n characters of nameAlphabet.
func randString(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = nameAlphabet[r.IntN(len(nameAlphabet))]
	}
	return string(b)
}

// randUID returns a version-4 UUID, as the API server assigns metadata.uid.
func randUID(r *rand.Rand) types.UID {
	hi, lo := r.Uint64(), r.Uint64()
	hi = hi&^0xf000 | 0x4000     // version 4
	lo = lo&^(0xc<<60) | 0x8<<60 // variant 10
	return types.UID(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		hi>>32, hi>>16&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff))
}

// randHex returns n lowercase hexadecimal digits.
func randHex(r *rand.Rand, n int) string {
	const hex = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = hex[r.IntN(16)]
	}
	return string(b)
}

// between returns a uniform integer in [lo, hi].
func between(r *rand.Rand, lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + r.Int64N(hi-lo+1)
}

// chance reports true with probability p.
func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

// pick returns one of xs, uniformly.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }
