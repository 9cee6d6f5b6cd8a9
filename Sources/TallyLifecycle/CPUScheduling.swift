import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How the kernel schedules a server process's threads: `--cpu-scheduling`, `TALLY_CPU_SCHEDULING`.
///
/// `batch` (Linux's `SCHED_BATCH`, the default) marks the threads as throughput work. They keep the
/// same share of the CPU as normal threads; what changes is that a thread woken up does not
/// preempt the one running on its core, it runs at its turn. Every Tally request wakes several
/// threads in a row (a socket thread, libzmq's I/O threads, the peer process's), and with
/// preemption each wake-up switches at once and finds one message; without it, each finds several,
/// and the machine does less switching per request. On a 2-core machine the stack's processes
/// answered `calc.tip` 5 to 8 % faster this way, with the same single-request latency
/// (`docs/performance.md`). `normal` leaves the threads as they started, for a host where Tally's
/// wake-ups should preempt other work.
public enum CPUScheduling: String, Sendable, CaseIterable {
    case batch
    case normal

    /// What `apply()` did, for the process's log.
    public enum Outcome: Equatable, Sendable {
        /// Every thread of the process now runs under `SCHED_BATCH`.
        case batch(threads: Int)
        /// `normal` was asked for: nothing changed.
        case unchanged
        /// The process was started under another policy than the normal one (by `chrt`, or
        /// systemd's `CPUSchedulingPolicy=`): an operator's choice, kept.
        case keptStartingPolicy(Int32)
        /// The kernel refused (a seccomp filter, say), with this `errno`; threads stay as they were.
        case refused(errno: Int32)
        /// Not Linux: there is no `SCHED_BATCH`.
        case unsupported
    }

    /// Applies the policy to every thread this process has. Linux schedules threads, not
    /// processes, and a new thread takes the policy of the thread that starts it, so threads
    /// started after this inherit it. Call it early, before the process's sockets and services
    /// start their threads.
    public func apply() -> Outcome {
        guard self == .batch else { return .unchanged }
        #if os(Linux)
        let starting = sched_getscheduler(0)
        guard starting == Self.linuxNormalPolicy else {
            return starting == Self.linuxBatchPolicy ? .batch(threads: Self.threadIDs().count) : .keptStartingPolicy(starting)
        }
        var parameters = sched_param()
        parameters.sched_priority = 0
        var threads = 0
        for thread in Self.threadIDs() {
            if sched_setscheduler(thread, Self.linuxBatchPolicy, &parameters) == 0 {
                threads += 1
            } else if errno != ESRCH {  // a thread that ended meanwhile needs nothing
                return .refused(errno: errno)
            }
        }
        return .batch(threads: threads)
        #else
        return .unsupported
        #endif
    }

    #if os(Linux)
    static let linuxNormalPolicy = SCHED_OTHER
    /// `SCHED_BATCH` from `<sched.h>`, which Swift's Glibc module leaves out (it is behind `_GNU_SOURCE`).
    static let linuxBatchPolicy: Int32 = 3

    /// This process's threads, from `/proc/self/task`.
    static func threadIDs() -> [pid_t] {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task"))?.compactMap { pid_t($0) } ?? []
        return threads.isEmpty ? [getpid()] : threads
    }
    #endif
}
