// Package ratelimit is the rate limiter every service shares. Limits live in Redis, so every
// service and every replica draws from the same bucket for a given policy and client.
//
// # Algorithm
//
// The limiter is GCRA (the generic cell rate algorithm, via go-redis/redis_rate): per key it
// stores one timestamp, the theoretical arrival time, updated atomically by a Lua script. That
// gives a smooth token bucket with burst = Rate, needs no background refill, costs one round
// trip, and, unlike fixed windows, lets no client double its rate across a window boundary. The
// Redis key is "rate:<prefix>:<policy>:<key>" (redis_rate adds "rate:").
//
// # Headers
//
// Every response that passed through the limiter (allowed or refused) carries:
//
//	X-RateLimit-Limit      the policy's rate (requests per window)
//	X-RateLimit-Remaining  requests that may be made right now
//	X-RateLimit-Reset      seconds (a delta, not an epoch time) until the bucket is full again
//	RateLimit-Policy       <limit>;w=<window seconds>  (IETF draft)
//	RateLimit              limit=<n>, remaining=<n>, reset=<seconds>  (IETF draft)
//
// A refusal is 429 with the error envelope (code "rate_limited") and Retry-After in whole
// seconds, at least 1.
//
// # When Redis fails
//
// A Redis call that errors or takes longer than Config.Timeout switches the process to an
// in-memory GCRA so the service keeps answering. While in fallback each process holds its share
// of the limit, 1/Config.FallbackReplicas of the rate (RATELIMIT_FALLBACK_REPLICAS, which the
// charts set to the replica count), so the replicas together do not exceed it; no request calls
// Redis (a circuit breaker: none waits Config.Timeout for an absent server), and a background
// ping every Config.ProbeInterval ends the fallback at Redis's first answer, with or without
// traffic. The switch is logged once each way and shown by bizassist_ratelimit_fallback_active;
// Limiter.RedisAvailable tells other Redis callers.
//
// The limits fail closed across the switch, however often it happens: the in-process bucket
// counts every request the process allowed, in Redis or not, and the requests allowed in process
// are charged to the shared bucket at their key's next decision in Redis. A breaker that flapped
// under load once let a fresh in-process budget through after the shared one was spent.
package ratelimit
