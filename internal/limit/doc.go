// Package limit provides adaptive concurrency limits: one Limiter per
// node decides how many write requests the loader keeps in flight to it.
//
// A fixed number in flight (the loader used 128) is right for exactly
// one cluster. Against a node with less capacity the surplus waits in
// the node's queues, latency climbs until writes time out or the node
// answers Overloaded, and every retry adds load. The number that keeps a
// node busy without queueing is its bandwidth-delay product (BDP):
// throughput times the unloaded round-trip time. For the loader's
// requests (batches of about 20 rows) a node doing 50k rows/s is 2500
// requests/s; at a 1 ms floor that is 2.5 requests, at 20 ms in
// production 50. The Limiter finds it from latency and drops.
//
// # Algorithm
//
// The Limiter is delay-based, after TCP Vegas and Netflix's VegasLimit,
// with a windowed minimum RTT and floor re-measurement taken from BBR,
// and a multiplicative decrease on drops as in AIMD. Netflix's
// Gradient2 was considered and not taken: it compares a short average
// with a long average of the RTT, so a standing queue slowly becomes
// the reference and the limit drifts upwards, and the ratio of two
// averages says how much latency changed, not how many requests wait,
// so its target moves with the node's noise. Pure AIMD learns only from
// drops, that is, by overloading the node on purpose every cycle, which
// is what the loader must stop doing. Vegas reasons in requests queued,
// which is the quantity to bound, and is insensitive to the floor's
// absolute size, so the same rule works at 0.3 ms and at 50 ms.
//
// Per window the Limiter estimates the requests queued at the node as
//
//	queue = inflight × (1 − floor / rtt)
//
// where inflight is the most requests in flight during the window (at
// most the limit), floor is the recent minimum RTT and rtt the window's
// minimum RTT. The window minimum, not the mean, is used because a
// queue at a node delays every request, while the long tail (a GC
// pause, a compaction, one slow replica) delays a few: the minimum of a
// window sees the queue and ignores the tail, which would otherwise
// hold a Vegas limiter far below capacity.
//
// The limit is moved to keep a small standing queue, between alpha =
// max(2, 3·log10(limit)) and beta = 2·alpha requests: a node with a
// couple of requests waiting never idles between responses, and the
// queue grows only logarithmically with the limit, so at a BDP of 50 it
// costs about a fifth more latency.
//
//   - queue < alpha: grow by 1 per window (in slow start, at the
//     beginning, by half the limit per window), but only if the window
//     used the whole limit; a client that keeps fewer requests in flight
//     gives no evidence that more would be absorbed.
//   - alpha ≤ queue ≤ beta: hold.
//   - queue > beta: shrink by half the excess (at least 1), which
//     converges geometrically from a far too high start, such as the old
//     fixed 128 against a small node, without undershooting.
//
// # Windows and smoothing
//
// A window closes when max(4, limit) requests sent after it opened have
// completed: about one RTT of traffic, as in TCP where the window is a
// congestion window of acknowledgements. Responses to requests sent
// before the window opened describe the previous limit and are not
// counted. One adjustment of at most a few requests per window is the
// smoothing: no EWMA, whose lag makes a limiter oscillate, and a single
// odd window moves the limit by one.
//
// # The floor
//
// The floor is the minimum RTT of successful requests. A sample at or
// below it renews it; the floor is trusted for FloorWindow (10 s by
// default, as in BBR). If it has not been seen again for that long (the
// node may have become slower for good, or a standing queue hides the
// true floor), the Limiter probes: admission drops to a quarter of the
// limit, and once the requests in flight have fallen to that level the
// minimum RTT of max(4, quarter) requests sent afterwards becomes the
// new floor, higher or lower than the old one. The learned limit is then
// restored. A probe costs two or three RTTs at a quarter of the rate
// every FloorWindow, well under 1% of throughput; without it a
// permanently slower node would look permanently queued and the limit
// would sit at Min for good.
//
// # Drops
//
// A Dropped outcome (Overloaded, a write timeout, a client timeout)
// means the node is saturated whatever the latency says: the limit is
// multiplied by Backoff (0.7 by default, as in CUBIC: large enough to
// drain a queue, not so large that throughput collapses). All requests
// sent before the cut belong to the same congestion event, so a drop of
// a request sent before the last cut is ignored; this limits cuts to
// one per RTT even when a whole window times out together after a long
// client timeout. For FloorWindow after a drop the limit does not grow
// back to the level that was dropped at, so a node with a shallow queue
// bound is not pushed over it every few RTTs.
//
// # Bounds and modes
//
// The limit stays within [Min, Max]; Max is the --max-in-flight ceiling.
// Config.Fixed turns adaptation off: the limit is Max and Acquire and
// Release only count, so the loader has one code path either way.
// Outcome Ignore returns a permit without learning anything (errors that
// say nothing about load, such as a bad row).
//
// # Concurrency and cost
//
// A Limiter is safe for concurrent use. One mutex guards the state.
// Blocked Acquire calls wait in a FIFO list, each on its own one-slot
// channel that is handed a permit under the mutex, so a release or a
// grown limit wakes exactly the waiters it admits and none is lost; a
// cancelled waiter leaves the list, or passes on a permit granted while
// it was cancelled. Waiter records are pooled, so neither the fast path
// nor, in steady state, a blocking Acquire allocates, and no goroutine
// is started per call. Release reads the clock once (Config.Now, which
// tests replace with a fake clock) and does a few comparisons; a window
// close adds a logarithm.
package limit
