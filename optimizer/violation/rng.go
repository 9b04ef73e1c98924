package violation

// Counter-based randomness: every draw of Algorithm 1 is a pure function of
// (request seed, tenant ID, repetition), so a tenant gets the same sampled
// futures in every node's estimate of one request — the candidate's in
// particular, which makes the estimates of different nodes comparable
// (common random numbers), and Pr(S) and Pr(S ∪ {db}) share their draws of S.

// golden is 2⁶⁴/φ, the splitmix64 increment.
const golden = 0x9e3779b97f4a7c15

// mix64 is the splitmix64 finalizer, a bijection that scrambles every bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// RequestSeed derives the seed of one placement request from the run seed
// and the request's id (STYLE habit 6); Simulate numbers requests in the
// order it issues them.
func RequestSeed(run uint64, request int64) uint64 {
	return mix64(run ^ mix64(uint64(request)+golden))
}

// stream is the base of a tenant's draws within a request.
func stream(seed uint64, tenant int64) uint64 {
	return mix64(seed + golden*mix64(uint64(tenant)^0x5851f42d4c957f2d))
}

// pick maps the repetition's draw to an index in [0, n), n < 2³², by
// Lemire's multiply-shift (bias below n/2³²).
func pick(base uint64, rep int, n int) int {
	x := mix64(base + golden*uint64(rep+1))
	return int(((x >> 32) * uint64(n)) >> 32)
}
