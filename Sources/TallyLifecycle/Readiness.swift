import Synchronization

/// A process's readiness, made of parts that each become ready on their own (the notifier's
/// inlet and its `alerts` worker, say): `READY=1` goes out when the last part is ready, and the
/// status line shows every part, so `systemctl status` (or a test's failure message) says which
/// part is still waiting and why.
public final class Readiness: Sendable {
    private let notifier: ReadinessNotifier
    private let parts: Mutex<[(name: String, ready: Bool, status: String)]>

    /// - Parameter parts: the names of the parts, in the order their status is shown.
    public init(parts: [String], notifier: ReadinessNotifier = .shared) {
        self.notifier = notifier
        self.parts = Mutex(parts.map { ($0, false, "starting") })
    }

    /// The handle a part reports through.
    public func reporter(for part: String) -> ReadinessReporter {
        ReadinessReporter(readiness: self, part: part)
    }

    /// Says the process is shutting down.
    public func stopping() {
        notifier.stopping(status: "stopping")
    }

    fileprivate func report(_ part: String, ready: Bool, status: String) {
        let (allReady, line) = parts.withLock { parts -> (Bool, String) in
            if let index = parts.firstIndex(where: { $0.name == part }) {
                parts[index].ready = ready
                parts[index].status = status
            } else {
                parts.append((part, ready, status))
            }
            return (parts.allSatisfy(\.ready), parts.map(\.status).joined(separator: "; "))
        }
        if allReady { notifier.ready(status: line) } else { notifier.notReady(status: line) }
    }
}

/// How one part of a process says whether it serves. Cheap to copy; pass it to the part.
public struct ReadinessReporter: Sendable {
    let readiness: Readiness?
    let part: String

    fileprivate init(readiness: Readiness, part: String) {
        self.readiness = readiness
        self.part = part
    }

    private init() {
        readiness = nil
        part = ""
    }

    /// A reporter that tells nobody: for parts run outside a process that reports readiness.
    public static let none = ReadinessReporter()

    public func ready(_ status: String) { readiness?.report(part, ready: true, status: status) }
    public func notReady(_ status: String) { readiness?.report(part, ready: false, status: status) }
}
