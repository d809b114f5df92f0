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
// Two controls, one per kind of sign a saturated node gives:
//
//   - a limit on requests in flight, for a node that queues: every
//     request of a window waits, so the window's minimum RTT rises well
//     above the floor, and the limit is cut (see Windows);
//   - a pacer, for a node that sheds (answers Overloaded, or the client
//     times out: a drop) or holds requests and times them out later
//     (permits held by requests whose answer does not come): admission
//     is paced at a rate that is cut on each such overload and grows
//     while the pacer is what holds the client back (see Pacing).
//
// A pure delay rule (TCP Vegas, Netflix's VegasLimit, which this
// package used before) keeps the queue at a few requests and so holds
// the limit where RTT starts to grow: on the loader's own host that is
// where the client's CPU, not the node, sets the RTT, and it held the
// loader at half its throughput against an unlimited cluster. The limit
// here tolerates the RTT growth that concurrency brings (up to twice
// the floor plus 1.5 ms, see below) and reacts to a queue only beyond
// it.
//
// A node that sheds or times out shows no queue: its RTT stays at the
// floor up to the moment it refuses. Cutting the in-flight limit on
// drops (this package did, by 0.7, as CUBIC does a window) controls the
// rate only through RTT, and on a loaded client host RTT moves by a
// factor of two from one window to the next: at the two or three
// requests in flight such a node takes, the rate swung across its
// capacity, and the loader reached 60-65% of it. A rate is what such a
// node has, so a rate is what the pacer controls (as BBR paces at the
// bottleneck's rate rather than relying on its window).
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
// # Pacing
//
// Admission is not paced until the first overload. Then the rate starts
// at 0.9 of the best the node delivered in the eight windows before (or
// in the current one, or the rate pacing last ended at, if higher), and
// each later overload multiplies it by 0.9, or, when it is held requests
// that show it, 0.9 of what the node delivered in those of the last eight
// windows in which the pacer bound, if that is less. Held requests show
// 200 ms late (below), by when a probe may have taken the rate well past
// the node's capacity: cut by a tenth of that, the rate stayed above it,
// and five overloads in a row each held more requests for the node's
// timeout. A window in which the node holds every permit delivers next to
// nothing, and single windows catch the node's bursts, hence the mean of
// the windows the client kept the node busy in. Drops of requests sent before the last
// cut were caused by the rate already cut and are ignored: one cut per
// overload, even when the answers to a whole held window arrive
// together after the node's timeout. Drops never cut the in-flight
// limit.
//
// The pacer keeps a virtual schedule (the time its next request is
// due, advanced by one interval per admission; GCRA). A client woken
// late catches up by 2 ms (or two intervals) at most, so a late timer
// costs little and a stall does not turn into a burst. Requests sent
// without a permit (retries) take a slot too (Charge), or they would
// load the node beyond the rate, and wait for it: a node that held
// requests for its write timeout answers them together, and their
// retries sent at once were held again, half of them, which cost
// another timeout at the end of a run. Wake says when the next slot is
// due.
//
// Every rate window (50 ms, or four floors if longer) in which the
// pacer held a request back and the client sent at least 0.75 of the
// rate, the rate grows by 1% of itself: it creeps up to the level that
// overloaded the node last (as CUBIC's window does near its last
// maximum; for the first overload, the level is the estimate the rate
// started from). Past 1.05 times that level the step grows by a quarter each
// such window in a row, up to 25%, so that a capacity that grew is found
// within a second or so. With no window to go by (an overload in the
// run's first), the step starts at 25%: the estimate may be far too low.
// After two seconds without an overload in which the pacer held nothing
// back, pacing ends. Within a write timeout of the run's end (Finishing,
// which the loader calls from the input left and the rate it is settled
// at) the rate no longer grows: a probe that makes the node hold a
// request there delays the end by the whole timeout.
//
// # Requests held
//
// A node that times requests out holds the surplus for its timeout (2
// s for Cassandra writes) and answers nothing: no drop and no RTT sample
// until then. The Limiter counts, per rate window, the requests sent
// (Sending, called as each goes out) and the answers to them (placed by
// the time their RTT says they were sent, on the same clock). A request
// still unanswered 200 ms (or ten floors) after its window closed is one
// the node holds: more than two of those, and more than 2% of the
// requests sent with them, appearing in a window is an overload, and
// the pacer cuts its rate, once: requests held in windows sent before a
// cut are ignored, as drops of requests sent before it are (they aged
// one window after another and cut the rate three to five times in a
// row). Held requests are admitted on top of the limit, and of Max too
// (up to Max more), since they do not load the node and would otherwise
// starve the loader of permits for the whole timeout: capped at Max, a
// probe that made a node hold 125 requests left it 3 of 128 permits, and
// a third of its capacity, for two seconds.
//
// Waiting for a held request's answer gains nothing: the node answers
// WriteTimeout once its timeout is over, and the request goes again. At
// the end of a run it cost the whole timeout with nothing else left to
// send (a third of the timeout scenario's rows/s in some runs). Timeout
// gives the caller a retransmission timeout per attempt, as TCP's (RFC
// 6298): the smoothed RTT of successes plus four times its mean
// deviation, at least twice the hold age (400 ms, or twenty floors),
// 1 s before the first success, doubled for each attempt after the first
// so that a request that is slow rather than held (a large batch, a
// slower node) gets the time it needs. Only first attempts are sampled
// (Karn's rule), so a node whose RTT jumped past the timeout would never
// answer a sampled request in time, and every request would go twice:
// TimedOut doubles the timeout, once per burst of time-outs (requests
// sent before the last doubling do not double it again), until a success
// is measured, as TCP backs off its timer. The loader gives up on the attempt at that timeout and
// sends it again, an insert being idempotent; a counter update waits
// for its answer, since one given up on may have been applied.
//
// An estimate from Little's law (the requests the answers account for
// against the requests in flight) was used first. It moves by several
// requests whenever the client itself stalls for a few milliseconds (a
// GC cycle, a busy core), which on a loaded host looked like a node
// holding requests and cut the rate again and again; a request
// unanswered for 200 ms is the node's doing. A window with nothing
// answered still closes: TryAcquire refused for want of a permit closes
// it when due, and Wake includes its end. It closes each 50 ms while
// every permit is taken, answers or not: waiting for a few answers from
// a node that held every permit left the node's queue stalled for half
// a second before the held requests were seen.
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
// The limit stays within [Min, Max]; Max is the --max-in-flight ceiling,
// which only requests a node holds may exceed (above).
// Config.Fixed turns adaptation off: the limit is Max, nothing is paced,
// and TryAcquire and Release only count, so the loader has one code
// path either way.
// Outcome Ignore returns a permit without learning anything (errors that
// say nothing about load, such as a bad row).
//
// # Concurrency and cost
//
// A Limiter is safe for concurrent use. One mutex guards the state.
// Admission never blocks: TryAcquire says yes or no, and the caller (the
// loader's dispatcher, one goroutine) tries again when a permit comes
// back or at Wake, so no goroutine waits per request and nothing
// allocates. TryAcquire and Release read the clock once (Config.Now,
// which tests replace with a fake clock) and do a few comparisons; a
// window close adds a few floating-point operations.
package limit
