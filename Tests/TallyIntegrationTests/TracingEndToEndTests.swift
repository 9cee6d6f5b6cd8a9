import Foundation
import TallyClient
import TallyProtocol
import TallyTesting
import Testing

/// Issue 35's trace, through real processes: a gateway, a shopping worker, the notifier and a
/// `tally watch --json`, each exporting its spans over OTLP/HTTP to a receiver in the test. One
/// purchase that makes a price alert is one trace: the client's span, the gateway's, the
/// worker's, the notifier's handling of the event, and the alert, each the child of the one before.
@Suite struct TracingEndToEndTests {
    /// Ann (user id 2), buying milk with her token, and a trace context when given one.
    private struct Shopper {
        let client: TallyClient
        let token: String

        func call(_ command: String, _ args: JSONValue, traceparent: String? = nil) async throws -> JSONValue {
            let envelope = Envelope(command: command, args: args, token: token, traceparent: traceparent)
            let reply = try Reply.decode(try #require(try await client.send(envelope.encoded()).first))
            return try #require(reply.result, "\(command): \(reply)")
        }

        /// A new list with milk on it, bought at `price`: the purchase carries `traceparent`.
        func buyMilk(at price: String, traceparent: String? = nil) async throws {
            let list = try await call("shopping.create_list", ["kind": "shopping", "name": "Week", "currency": "EUR"])
            let added = try await call("shopping.add_item", ["list_id": list["id"] ?? .null, "name": "Milk"])
            _ = try await call(
                "shopping.mark_purchased",
                ["list_id": list["id"] ?? .null, "item_id": added["item"]?["id"] ?? .null, "unit_price": .string(price)],
                traceparent: traceparent)
        }
    }

    @Test func onePurchaseIsOneTraceFromTheGatewayToTheAlert() async throws {
        let receiver = try await OTLPReceiver.start()
        var options = TallyStack.Options(workers: ["shopping": 1])
        options.environment = [
            "TALLY_TRACING_ENDPOINT": receiver.endpoint,
            // The standard variables, honoured as any OpenTelemetry SDK honours them: JSON, so the
            // receiver reads it without protobuf, and exported at once rather than every 5 s.
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_BSP_SCHEDULE_DELAY": "50",
        ]
        do {
            try await TallyStack.with(options) { stack in try await purchaseAndAlert(stack, receiver) }
        } catch {
            await receiver.stop()
            throw error
        }
        await receiver.stop()
    }

    private func purchaseAndAlert(_ stack: TallyStack, _ receiver: OTLPReceiver) async throws {
        try await stack.startNotifier()
        let token = try stack.accessToken(for: "ann", userID: "2", lifetime: .seconds(3600))
        let watch = try stack.startWatch(["--since", "0"], token: token)
        let shopper = Shopper(client: try stack.client(timeout: .seconds(10)), token: token)

        // Last week's milk, sent without a trace context: the gateway starts the trace and
        // hands its span to the worker in the REQUEST (protocol 6.1).
        try await shopper.buyMilk(at: "1.19")
        // Each process exports on its own schedule: wait for the worker's span and its parent.
        @Sendable func untracedPair() -> (worker: OTLPReceiver.ReceivedSpan, parent: OTLPReceiver.ReceivedSpan)? {
            let spans = receiver.spans
            guard let worker = spans.first(where: { $0.serviceName == "tally-shopping" && $0.name == "shopping/mark_purchased" }),
                let parent = spans.first(where: { $0.spanID == worker.parentSpanID })
            else { return nil }
            return (worker, parent)
        }
        try await stack.waitUntil("the untraced purchase's spans arrive", timeout: .seconds(60)) { untracedPair() != nil }
        let (untracedWorker, untracedGateway) = try #require(untracedPair(), "\(receiver.spans)")
        #expect(untracedGateway.serviceName == "tally-gateway")
        #expect(untracedGateway.parentSpanID == nil, "a request without traceparent starts a trace at the gateway")
        #expect(untracedGateway.traceID == untracedWorker.traceID)

        // This week's, dearer, traced by the client.
        let caller = TraceParent.newTrace()
        try await shopper.buyMilk(at: "1.29", traceparent: caller.text)
        let expected: Set<String> = [
            "tally-gateway shopping/mark_purchased", "tally-shopping shopping/mark_purchased", "tally-shopping transaction shopping",
            "tally-notifier process shopping.price_changed", "tally-notifier create alert.price_higher",
        ]
        do {
            try await stack.waitUntil("the trace's spans arrive from every process", timeout: .seconds(60)) {
                expected.isSubset(of: Set(receiver.spans.filter { $0.traceID == caller.traceID }.map { "\($0.serviceName) \($0.name)" }))
            }
        } catch {
            // What did arrive, and what each process said (an export it could not send says so).
            Issue.record("trace \(caller.traceID)\n\(receiver.spans.map(\.description).joined(separator: "\n"))\n\(stack.logs)")
            throw error
        }
        let trace = receiver.spans.filter { $0.traceID == caller.traceID }
        let gateway = try Self.span("tally-gateway", "shopping/mark_purchased", in: trace)
        let worker = try Self.span("tally-shopping", "shopping/mark_purchased", in: trace)
        let transaction = try Self.span("tally-shopping", "transaction shopping", in: trace)
        let handling = try Self.span("tally-notifier", "process shopping.price_changed", in: trace)
        let alert = try Self.span("tally-notifier", "create alert.price_higher", in: trace)
        #expect(gateway.parentSpanID == caller.spanID, "the gateway's span is the client's child")
        #expect(worker.parentSpanID == gateway.spanID)
        #expect(transaction.parentSpanID == worker.spanID, "the change's transaction is the worker's child")
        // It lasts until the group commit holding the change has committed, and says how many it held.
        #expect((transaction.attributes["tally.transaction.changes"].flatMap { Int($0) } ?? 0) >= 1, "\(transaction)")
        #expect(handling.parentSpanID == worker.spanID, "the event's traceparent is the worker's span")
        #expect(alert.parentSpanID == handling.spanID)
        #expect(gateway.attributes["rpc.system"] == "tally" && gateway.attributes["rpc.method"] == "mark_purchased")
        #expect(handling.attributes["messaging.system"] == "zeromq")

        // The alert names its trace, and `tally watch --json` shows it.
        try await stack.waitUntil("the watcher shows the alert", timeout: .seconds(30)) {
            watchedAlerts(watch).contains { $0["kind"] == "price_higher" }
        }
        let shown = watchedAlerts(watch).first { $0["kind"] == "price_higher" }
        #expect(shown?["trace_id"]?.stringValue == caller.traceID, "\(watchedAlerts(watch))")
    }

    private static func span(_ service: String, _ name: String, in trace: [OTLPReceiver.ReceivedSpan]) throws -> OTLPReceiver.ReceivedSpan {
        try #require(trace.first { $0.serviceName == service && $0.name == name }, "\(service) \(name) in \(trace)")
    }

    @Test func aMalformedTraceparentIsRefusedNamingTheField() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let client = try stack.client(timeout: .seconds(10))
            let envelope = Envelope(
                command: "calc.tip", args: ["amount": "10.00", "tip_percent": "10", "currency": "USD"], traceparent: "00-abc-def-01")
            let reply = try Reply.decode(try #require(try await client.send(envelope.encoded()).first))
            #expect(reply.error?.code == .invalidArgument)
            #expect(reply.error?.field == "traceparent")
        }
    }
}
