import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// `tally status` as an operator runs it against a running stack, piped (so one-shot): the
/// services with their live workers, requests that move with calls, percentiles once requests
/// were answered, and the notifier's lag per source. No timing value is asserted.
@Suite struct StatusCommandTests {
    /// Runs `tally status` with `arguments` to completion; its exit status and output.
    private func status(_ arguments: [String], in stack: TallyStack) async throws -> (status: Int32, output: String) {
        let process = try stack.launch("status", ["status"] + arguments)
        #expect(await process.waitForExit(timeout: .seconds(30)))
        return (process.exitStatus ?? -1, process.log)
    }

    /// `tally status --json`, read back.
    private func statusJSON(_ stack: TallyStack, extra: [String] = []) async throws -> JSONValue {
        let run = try await status(["--json", "--endpoint", stack.frontend] + extra, in: stack)
        #expect(run.status == 0, "\(run.output)")
        let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("{") }, "\(run.output)")
        return try JSONReader.parse(Data(line.utf8))
    }

    /// A percentile as a number; nil when it is null or missing.
    private func milliseconds(_ value: JSONValue?) -> Double? {
        switch value {
        case .integer(let whole)?: Double(whole)
        case .number(let number)?: number
        default: nil
        }
    }

    private func row(_ service: String, in status: JSONValue) -> JSONValue? {
        status["gateway"]?["services"]?.arrayValue?.first { $0["name"]?.stringValue == service }
    }

    @Test func showsWorkersRequestsPercentilesAndTheNotifiersLag() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            // No notifier yet: the gateway's figures, and why the notifier's are missing.
            let before = try await statusJSON(stack)
            let calc = try #require(row("calc", in: before), "\(before)")
            #expect(calc["workers"] == 1)
            #expect(calc["recent"]?["requests"] == 0)
            #expect(calc["recent"]?["p50_ms"] == .null, "no percentile before the first request: \(calc)")
            #expect(before["notifier"] == .null)
            #expect(before["notifier_error"]?["code"] == "unavailable", "\(before)")

            let client = try stack.client()
            for _ in 0..<3 {
                let tip = try await client.call("calc.tip", ["amount": "84.00", "tip_percent": "18", "currency": "USD"])
                #expect(tip.isOK, "\(tip)")
            }
            let after = try await statusJSON(stack)
            let served = try #require(row("calc", in: after), "\(after)")
            #expect(served["requests"]?.intValue == (calc["requests"]?.intValue ?? 0) + 3, "\(served)")
            #expect(served["recent"]?["requests"] == 3, "\(served)")
            let percentiles = ["p50_ms", "p90_ms", "p99_ms"].compactMap { milliseconds(served["recent"]?[$0]) }
            #expect(percentiles.count == 3, "three percentiles after three requests: \(served)")
            #expect(percentiles == percentiles.sorted(), "p50 <= p90 <= p99: \(percentiles)")

            // A shopping event whose two predecessors the notifier cannot fetch (no shopping
            // worker): it knows of three and has handled none in order.
            try await stack.startNotifier()
            try await stack.publish([priceChanged(3)])
            try await stack.waitUntil("alerts.status shows the shopping source") {
                (try? await stack.client().call("alerts.status"))?.result?["sources"]?.arrayValue?.isEmpty == false
            }
            let behind = try await statusJSON(stack)
            let shopping = try #require(behind["notifier"]?["sources"]?.arrayValue?.first { $0["service"] == "shopping" }, "\(behind)")
            #expect(shopping["handled_through"] == 0)
            #expect(shopping["newest_known"] == 3)
            #expect(shopping["lag_events"] == 3)
            #expect(behind["notifier"]?["last_alert_sequence"] == 1, "the event itself was handled: \(behind)")
            #expect((row("alerts", in: behind)?["workers"]?.intValue ?? 0) >= 1)

            // The one-shot table says the same, in columns: SERVICE WORKERS BUSY QUEUED REQUESTS ...
            let table = try await status(["--once", "--endpoint", stack.frontend], in: stack)
            #expect(table.status == 0, "\(table.output)")
            let lines = table.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            let calcLine = try #require(lines.first { $0.first == "calc" }, "\(table.output)")
            #expect(Array(calcLine.prefix(2)) == ["calc", "1"], "\(table.output)")
            #expect(calcLine.count > 4 && calcLine[4] == served["requests"].map { "\($0.intValue ?? -1)" }, "\(table.output)")
            #expect(lines.contains { $0.first == "NOTIFIER" }, "\(table.output)")
            let shoppingLine = try #require(lines.last { $0.first == "shopping" }, "\(table.output)")
            #expect(Array(shoppingLine.suffix(3)) == ["0", "3", "3"], "HANDLED NEWEST LAG: \(table.output)")

            // The shopping service's events come back: the notifier fills the gap and the lag is gone.
            let feed = EventFeedStub()
            feed.add(priceChanged(1), priceChanged(2, item: "Bread"), priceChanged(3), priceChanged(4, item: "Tea"))
            let worker = try await stack.rawWorker("shopping", .reply(feed.answer))
            defer { Task { try? await worker.stop() } }
            try await stack.publish([priceChanged(4, item: "Tea")])
            try await stack.waitUntil("the notifier caught up") {
                let source = (try? await stack.client().call("alerts.status"))?.result?["sources"]?.arrayValue?.first { $0["service"] == "shopping" }
                return source?["handled_through"] == 4
            }
            let caughtUp = try await statusJSON(stack)
            let source = try #require(caughtUp["notifier"]?["sources"]?.arrayValue?.first { $0["service"] == "shopping" })
            #expect(source["lag_events"] == 0, "\(caughtUp)")
            #expect(source["newest_known"] == 4)
        }
    }

    @Test func talksToAGatewayThatRequiresCURVE() async throws {
        try await TallyStack.with(TallyStack.Options(workers: ["calc": 1], curve: true)) { stack in
            let curve = try #require(stack.curve)
            let shown = try await statusJSON(stack, extra: curve.clientArguments("client"))
            #expect(row("calc", in: shown)?["workers"] == 1, "\(shown)")
        }
    }

    @Test func exitsTwoWhenTheGatewayDoesNotAnswer() async throws {
        let stack = try TallyStack()
        let silent = try LoopbackListener()
        let run = try await status(["--once", "--endpoint", silent.endpoint, "--timeout-ms", "200"], in: stack)
        await stack.stop()
        withExtendedLifetime(silent) {}
        #expect(run.status == 2)
        #expect(run.output.contains("no reply"), "\(run.output)")
    }
}
