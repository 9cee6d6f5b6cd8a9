import Foundation
import Histogram
import ZeroMQ

/// Closed-loop load from one thread: `clients` DEALER sockets, each keeping `inFlight` requests
/// outstanding, for a warm-up and then a measured period.
///
/// Every request starts `{"id":"<slot>",`: a Tally reply echoes the id first and the bare relay
/// echoes the request, so the slot, and with it the send time, is read back from the first bytes
/// of the reply without parsing JSON. One thread drives every socket, so the load costs the
/// machine as little as it can and the same for every path measured.
struct PipelinedLoad {
    /// Makes the request body for a slot; `sequence` counts every request of the row, from
    /// `firstSequence` on, so each can carry its own idempotency key or name.
    typealias Body = @Sendable (_ slot: Int, _ sequence: Int) -> Data

    let endpoint: String
    let clients: Int
    let inFlight: Int
    let warmup: Duration
    let measured: Duration
    /// Whether replies are Tally replies (counted as errors when `"ok":false`) or echoes.
    let checksReplies: Bool
    /// The processes whose CPU time the measured period is charged with: this one, and the stack's;
    /// nil when they are not all on this machine (`--endpoint`).
    let cpu: ProcessCPU?
    /// CURVE keys for a gateway that requires them (`--curve-key`, `--gateway-key`).
    var curve: CurveClientKeys? = nil
    /// The first request's `sequence`: a later slice of a row goes on from the slices before it
    /// (`Outcome.sent`), so that no two requests of the row share a key.
    var firstSequence = 0

    struct Outcome: Sendable {
        var completed = 0
        var errors = 0
        /// Requests sent, the warm-up's and the unmeasured tail's included.
        var sent = 0
        var elapsed: Duration = .zero
        var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        /// The first error reply, to show what went wrong.
        var firstError: String?
        /// CPU seconds each process of the path used in the measured period, in `ProcessCPU`'s order.
        var cpuSecondsByProcess: [Double]?
        /// CPU seconds all the processes of the path used in the measured period.
        var cpuSeconds: Double? { cpuSecondsByProcess?.reduce(0, +) }

        var requestsPerSecond: Double { elapsed > .zero ? Double(completed) / elapsed.seconds : 0 }

        /// Adds another slice of the same row.
        mutating func merge(_ other: Outcome) {
            let isFirst = elapsed == .zero
            completed += other.completed
            errors += other.errors
            sent += other.sent
            elapsed += other.elapsed
            latency.add(other.latency)
            if firstError == nil { firstError = other.firstError }
            // CPU time is known for the whole row only when it is known for every slice.
            cpuSecondsByProcess = isFirst ? other.cpuSecondsByProcess : cpuSecondsByProcess.flatMap { mine in
                other.cpuSecondsByProcess.flatMap { theirs in mine.count == theirs.count ? zip(mine, theirs).map(+) : nil }
            }
        }
        /// Microseconds of CPU, over every process and thread of the path, per request.
        var cpuMicrosecondsPerRequest: Double? { cpuSeconds.map { $0 * 1e6 / Double(max(1, completed)) } }
        /// The same, for each process.
        var cpuMicrosecondsPerRequestByProcess: [Double]? { cpuSecondsByProcess?.map { $0 * 1e6 / Double(max(1, completed)) } }
    }

    func run(context: ZMQContext, body: @escaping @Sendable Body) async throws -> Outcome {
        try await DedicatedThread.run(name: "bench-load") { [self] in try drive(context: context, body: body) }
    }

    private func drive(context: ZMQContext, body: Body) throws -> Outcome {
        let sockets = try (0..<clients).map { _ in try ZMQSocket(context: context, type: .dealer) }
        defer { sockets.forEach { $0.close() } }
        for socket in sockets {
            try socket.setHighWaterMarks(send: 0, receive: 0)
            if let curve { try socket.useCurve(curve) }
            try socket.connect(endpoint)
        }
        let clock = ContinuousClock()
        var sentAt = [[ContinuousClock.Instant]](repeating: [ContinuousClock.Instant](repeating: clock.now, count: inFlight), count: clients)
        var sequence = firstSequence
        func send(_ client: Int, _ slot: Int) throws {
            sentAt[client][slot] = clock.now
            try sockets[client].send([Data(), body(slot, sequence)])
            sequence += 1
        }
        for client in 0..<clients {
            for slot in 0..<inFlight { try send(client, slot) }
        }
        var outcome = Outcome()
        var poller = ZMQPoller()
        for socket in sockets { poller.add(socket) }
        let start = clock.now
        let measureFrom = start + warmup
        let stopAt = measureFrom + measured
        var measuring = false
        var outstanding = clients * inFlight
        var stopping = false
        var cpuAtStart: [Double]?
        // After the measured period, outstanding requests may take up to their deadline to come back.
        let drainUntil = stopAt + .seconds(10)
        while outstanding > 0 {
            let now = clock.now
            if !measuring && now >= measureFrom {
                measuring = true
                outcome = Outcome()
                cpuAtStart = cpu?.seconds()
            }
            if !stopping && now >= stopAt {
                stopping = true
                if let cpuAtStart, let cpuNow = cpu?.seconds() { outcome.cpuSecondsByProcess = zip(cpuNow, cpuAtStart).map(-) }
            }
            if now >= drainUntil { break }
            try poller.poll(timeout: .milliseconds(100))
            for client in 0..<clients where poller.isReadable(client) {
                while let frames = try sockets[client].receive(dontWait: true) {
                    outstanding -= 1
                    guard let reply = frames.last, let (slot, isError) = Self.head(of: reply), slot < inFlight else {
                        throw BenchmarkError("a reply without the request's id: \(frames.map { String(decoding: $0.prefix(200), as: UTF8.self) })")
                    }
                    let received = clock.now
                    if measuring && !stopping {
                        outcome.completed += 1
                        _ = outcome.latency.record((received - sentAt[client][slot]).microseconds)
                        if checksReplies && isError {
                            outcome.errors += 1
                            if outcome.firstError == nil { outcome.firstError = String(decoding: reply.prefix(300), as: UTF8.self) }
                        }
                    }
                    if !stopping {
                        try send(client, slot)
                        outstanding += 1
                    }
                }
            }
        }
        outcome.elapsed = min(clock.now, stopAt) - measureFrom
        outcome.sent = sequence - firstSequence
        return outcome
    }

    private static let idPrefix = Array(#"{"id":""#.utf8)
    private static let okTrue = Array(#","ok":true"#.utf8)

    /// The slot number in a reply that starts `{"id":"<slot>"`.
    static func slot(of reply: Data) -> Int? { readID(of: reply)?.slot }

    /// The slot of a reply and whether it is a Tally error, both from its first bytes: `Reply`
    /// writes `"ok"` right after the id. A search of the whole reply (`Data.range(of:)`, 1.4 µs for
    /// a `calc.tip` reply) was load-client CPU charged to the stack's rows alone. A reply that does
    /// not read `,"ok":true` there counts as an error, so a change of the reply's shape shows in the
    /// table. (An echo of the relay is not a Tally reply; its `isError` means nothing.)
    static func head(of reply: Data) -> (slot: Int, isError: Bool)? {
        guard let (slot, end) = readID(of: reply) else { return nil }
        return (slot, reply.withUnsafeBytes { bytes in !bytes[end...].starts(with: okTrue) })
    }

    /// The slot of `{"id":"<slot>"` and the offset just past its closing quote.
    private static func readID(of reply: Data) -> (slot: Int, end: Int)? {
        reply.withUnsafeBytes { bytes -> (slot: Int, end: Int)? in
            guard bytes.count > idPrefix.count, bytes.starts(with: idPrefix) else { return nil }
            var value = 0
            var index = idPrefix.count
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            return index < bytes.count && bytes[index] == UInt8(ascii: "\"") ? (value, index + 1) : nil
        }
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    var microseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
    }
}
