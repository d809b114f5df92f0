// Package limit provides adaptive concurrency limits: one Limiter per
// node decides how many write requests the loader keeps in flight to it.
//
// A fixed number in flight (the loader used 128) is right for exactly
// one cluster. Against a node with less capacity the surplus waits in
// the node's queues, latency climbs until writes time out or the node
// answers Overloaded, and every retry adds load. Too few in flight is
// as costly: more concurrency amortizes per-request costs (syscalls,
// frames coalesced by the driver, batches at the server), so throughput
// keeps rising with the requests in flight well past the point where
// latency starts to rise, until the node saturates. Measured with the
// loader and cqlsim sharing two CPUs, 16 requests per node in flight
// deliver twice what 8 do, at a higher RTT.
//
// # Algorithm
//
// The limit grows while the node shows no sign of saturation and is cut
// on each of the three signs a saturated node gives, one per way it
// handles the surplus:
//
//   - it answers Overloaded (or the client times out): a drop;
//   - it queues: every request of a window waits, so the window's
//     minimum RTT rises well above the floor;
//   - it holds requests and times them out later: permits are held by
//     requests whose answer does not come, more of them than the
//     completions account for.
//
// A pure delay rule (TCP Vegas, Netflix's VegasLimit, which this
// package used before) keeps the queue at a few requests and so holds
// the limit where RTT starts to grow: on the loader's own host that is
// where the client's CPU, not the node, sets the RTT, and it held the
// loader at half its throughput against an unlimited cluster. This
// Limiter tolerates the RTT growth that concurrency brings (up to twice
// the floor plus 1.5 ms, see below) and reacts to a queue only beyond
// it.
//
// A hill climb on the delivery rate (grow while throughput rises with
// the limit, as BBR probes bandwidth) was built and measured first: per
// node the rate over windows of 50 to 100 ms varied by a factor of ten
// at a constant limit, because the loader's nodes are coupled (a slow
// node's batches fill the dispatcher's queue and starve the others) and
// its completions come in bursts of scheduling. No elasticity estimate
// survives that noise, so the rate is not used; only the three signs
// above, which a saturated node gives whatever the client's noise.
//
// # Windows
//
// A window closes when max(64, 2·limit) requests sent after it opened
// have completed: at least two RTTs of traffic, and enough samples that
// their minimum is not the client's scheduling noise. Responses to
// requests sent before the window opened describe the previous limit
// and are not counted. At the close, with floor the recent minimum RTT
// (see below) and rtt the window's minimum:
//
//   - rtt > 2·floor + 1.5 ms: every request of the window waited, so
//     the node queues. The limit is scaled by (2·floor + 1.5 ms)/rtt,
//     at least by Backoff: in a queue RTT is proportional to the limit,
//     so this aims at the threshold in one step.
//   - else, if the held requests grew (below): cut by a tenth.
//   - else, if the window used the whole limit: grow by an eighth (at
//     least a quarter of a request). A client that keeps fewer requests
//     in flight gives no evidence that more would be taken.
//
// The threshold is a ratio so that it scales from 0.3 ms to 50 ms
// floors; the 1.5 ms term covers the client's own noise on a loaded
// host, where a window's minimum RTT moves by a millisecond with no
// queue at the node. A queue of that size costs little: at 3000
// requests/s it is a few requests.
//
// The limit is fractional: at a node that saturates at 3.7 requests in
// flight, 3 leaves it 20% idle and 4 overloads it. Admission rounds the
// limit up in the fraction of windows that its fractional part says
// (a golden-ratio sequence spreads them), so the average in flight
// follows the learned value.
//
// # Drops
//
// A Dropped outcome means the node is saturated whatever the latency
// says: the limit is multiplied by Backoff (0.7 by default, as in
// CUBIC). Drops of requests sent before the cut took effect (before the
// requests in flight fell below the cut limit) belong to the same
// congestion event and are ignored: one cut per RTT, even when a whole
// window times out together after a long client timeout.
//
// A drop within DropHold of the last one, at or above 0.81 of the level
// dropped at then, is the node's capacity showing, not a new overload:
// it cuts by a tenth only, so a node that sheds now and then at its
// capacity is not left a third idle after each drop.
//
// After a drop the limit climbs back at the usual pace but, for
// DropHold (1 s by default), to at most 0.9 of the level it was dropped
// at: a node that sheds (a token bucket, a full native-transport queue)
// is at capacity just below that level, and holding there keeps the
// drop rate low without a long regrowth block. The hold is short so
// that a node whose capacity came back is used again within a second
// or two.
//
// # Requests held
//
// A node that times requests out holds the surplus for its timeout (2
// s for Cassandra writes) and answers nothing: no drop and no RTT sample
// until then. By Little's law the requests the window's completions
// account for are the sum of their RTTs over the window's length; the
// permits held beyond 1.5 times that (plus 2) are requests the node
// sits on. They are estimated at each window and admitted on top of the
// limit, since they do not load the node and would otherwise starve the
// loader of permits for the whole timeout; when they grow, the node is
// over capacity, the limit is cut by a tenth, and the timeouts that will
// follow are counted as that one congestion event.
//
// # The floor
//
// The floor is the minimum RTT of successful requests. A sample at or
// below it renews it; the floor is trusted for FloorWindow (10 s by
// default, as in BBR). If it has not been seen again for that long (the
// node may have become slower for good, or a standing queue hides the
// true floor), the Limiter probes: admission drops to a quarter of the
// limit, and once the requests in flight have fallen to that level the
// minimum RTT of max(16, quarter) requests sent afterwards becomes the
// new floor, higher or lower than the old one. The learned limit is then
// restored.
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
// close adds a few floating-point operations.
package limit
