#if TALLY_FAULT_INJECTION
import Foundation
import Logging
import TallyProtocol
import TallyStorage

/// Faults an integration test asks a worker process for, to watch the rest of the system cope:
/// a handler slower than a heartbeat or a deadline, a crash between a commit and its reply.
///
/// Compiled only where the build setting `TALLY_FAULT_INJECTION` is defined (debug builds, see
/// Package.swift), so a release binary, the one operators run, has no such doors at all.
public struct FaultInjection: Sendable {
    /// How long every request waits before its handler runs.
    public var handlingDelay: Duration
    /// Exit the process as soon as a change commits events: after the commit, before the events
    /// are published or the reply is sent, as a crash at the worst moment would.
    public var exitAfterCommit: Bool
    /// currency: a pause before each chunk of the data load, so a test can watch it load.
    public var currencyLoadDelay: Duration
    /// currency: after the first chunk, hold the load until this file exists, so a test sees the
    /// data half loaded for as long as it needs, however busy the machine.
    public var currencyLoadGate: String?

    public init(
        handlingDelay: Duration = .zero, exitAfterCommit: Bool = false, currencyLoadDelay: Duration = .zero,
        currencyLoadGate: String? = nil
    ) {
        self.handlingDelay = handlingDelay
        self.exitAfterCommit = exitAfterCommit
        self.currencyLoadDelay = currencyLoadDelay
        self.currencyLoadGate = currencyLoadGate
    }

    /// Middleware to put in front of every other: the handling delay, if any.
    public var middleware: [any RequestMiddleware] {
        handlingDelay > .zero ? [SlowHandling(delay: handlingDelay)] : []
    }

    /// Where committed events go instead of `sink` when the process is to exit after a commit.
    public func eventSink(replacing sink: (any EventSink)?, logger: Logger) -> (any EventSink)? {
        exitAfterCommit ? ExitAfterCommit(logger: logger) : sink
    }

    /// The currency loader's pause before each chunk, if any.
    public var beforeCurrencyChunk: (@Sendable (Int) -> Void)? {
        guard currencyLoadDelay > .zero || currencyLoadGate != nil else { return nil }
        let seconds = currencyLoadDelay.seconds
        let gate = currencyLoadGate
        return { loaded in
            if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
            if let gate, loaded > 0 {
                while !FileManager.default.fileExists(atPath: gate) { Thread.sleep(forTimeInterval: 0.01) }
            }
        }
    }
}

/// Holds every request on the worker's thread before passing it on.
struct SlowHandling: RequestMiddleware {
    let delay: Duration

    func respond(to request: Request, next: (Request) throws -> any Encodable & Sendable) throws -> any Encodable & Sendable {
        Thread.sleep(forTimeInterval: delay.seconds)
        return try next(request)
    }
}

/// Exits the process with status 70 when the first events commit, before anyone hears of them.
struct ExitAfterCommit: EventSink {
    let logger: Logger

    func publish(_ events: [CloudEvent]) {
        logger.warning("exiting after commit, before publishing (--exit-after-commit)")
        exit(70)
    }
}
extension Duration {
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
#endif
