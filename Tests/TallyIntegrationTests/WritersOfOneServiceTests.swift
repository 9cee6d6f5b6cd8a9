import Foundation
import TallyObservability
import TallyProtocol
import TallyTesting
import Testing

/// Two worker processes of one service writing the same PostgreSQL database at once, as a
/// deployment on several hosts runs them. Every write transaction updates the service's event
/// counter, so the processes take turns; each takes its turn before its first read
/// (`EventOutbox.takeWritersTurn`), so PostgreSQL aborts none of their transactions for a
/// conflict. When they read first and then waited for the counter, most overlapping transactions
/// failed to serialize and ran again after a pause, and under load some writes were refused.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.whyUnavailable ?? "")))
struct WritersOfOneServiceTests {
    @Test func twoProcessesOfAServiceWriteAtOnceWithoutConflicting() async throws {
        let cluster = try await PostgresCluster.started()
        var options = TallyStack.Options(workers: [:], database: .postgres)
        options.cluster = cluster
        try await TallyStack.with(options) { stack in
            var metrics: [HTTPAddress] = []
            for _ in 0..<2 {
                let address = try #require(HTTPAddress("127.0.0.1:\(try freeLoopbackPort())"))
                try await stack.startWorker("accounts", extraArguments: ["--metrics", "\(address)"]).waitUntilReady()
                metrics.append(address)
            }
            let token = try stack.accessToken(for: "ann")
            // Eight callers at once, so both processes always have changes to commit.
            let (callers, writesEach) = (8, 25)
            let refused = try await withThrowingTaskGroup(of: [String].self) { group in
                for caller in 0..<callers {
                    let client = try stack.client(timeout: .seconds(20))
                    group.addTask {
                        var refused: [String] = []
                        for write in 0..<writesEach {
                            let reply = try await client.call(
                                "accounts.create", ["name": .string("Account \(caller)-\(write)"), "currency": "EUR", "starting_balance": "0.00"],
                                idempotencyKey: "writers-\(caller)-\(write)", token: token)
                            if !reply.isOK { refused.append("\(reply)") }
                        }
                        return refused
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(refused.count == 0, "the first refused: \(refused.first ?? "")")

            for address in metrics {
                let text = try await HTTPProbe.get("/metrics", from: address, timeout: .seconds(10)).body
                // Both processes took part: each committed some of the writes.
                let served = try #require(Self.value(of: #"tally_worker_requests_total{service="accounts",command="accounts.create",code="ok"}"#, in: text))
                #expect(served > 0 && served < Double(callers * writesEach), "\(text)")
                #expect(Self.value(of: #"tally_store_conflicts_total{service="accounts"}"#, in: text) == 0, "\(text)")
            }
        }
    }

    /// The value of one series in Prometheus text exposition, or nil when it is not there.
    private static func value(of series: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.dropFirst(series.count + 1)) }
    }
}
