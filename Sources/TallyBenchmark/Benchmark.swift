import ArgumentParser
import Foundation
import Histogram
import TallyProtocol
import TallyTesting
import ZeroMQ

/// `tally-bench`: closed-loop load on a gateway, reporting throughput and latency percentiles.
///
/// Without `--endpoint` it starts its own stack (a gateway and `--workers` calc workers as real
/// processes, on ipc endpoints), so a run measures the whole path: client → gateway → worker.
@main
struct Benchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tally-bench",
        abstract: "Measure Tally's request throughput and latency.")

    @Option(help: "Gateway to load; without it a fresh local stack is started.")
    var endpoint: String?

    @Option(help: "Calc worker processes of the local stack.")
    var workers: Int = 2

    @Option(help: "Worker threads per worker process of the local stack.")
    var concurrency: Int = 1

    @Option(help: "Client threads, each with one request outstanding at a time.")
    var clients: Int = 4

    @Option(help: "Measured requests in all.")
    var requests: Int = 20_000

    @Option(help: "Requests before measuring, to warm caches and connections.")
    var warmup: Int = 1_000

    @Option(help: "The command to send.")
    var command: String = "calc.tip"

    @Option(help: "Its args, as JSON.")
    var args: String = #"{"amount":"84.00","tip_percent":"18","split":3,"currency":"USD"}"#

    func run() async throws {
        let parsedArgs = try JSONDecoder().decode(JSONValue.self, from: Data(args.utf8))
        let body = Envelope(command: command, args: parsedArgs).encoded()
        if let endpoint {
            try await measure(endpoint: endpoint, body: body, context: ZMQContext())
            return
        }
        var options = TallyStack.Options()
        options.heartbeat = .milliseconds(1000)
        let stack = try TallyStack(options: options)
        do {
            try await stack.start()
            let service = String(Envelope.service(of: command))
            if CommandCatalog.gatewayServices.contains(service) {
                print("stack: gateway only (\(service) is answered by the gateway), ipc endpoints")
                try await measure(endpoint: stack.frontend, body: body, context: stack.context)
            } else {
                for _ in 0..<workers { try stack.startWorker(service, concurrency: concurrency) }
                try await stack.waitForWorkers(service, count: workers * concurrency)
                print("stack: gateway + \(workers) \(service) worker process(es) × \(concurrency) thread(s), ipc endpoints")
                try await measure(endpoint: stack.frontend, body: body, context: stack.context)
                if case .number(let mean)? = try await stack.serviceStatus(service)?["mean_handling_ms"] {
                    print("mean time in the worker, as the gateway saw it: \(mean) ms")
                }
            }
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    private func measure(endpoint: String, body: Data, context: ZMQContext) async throws {
        let perClient = max(1, requests / clients)
        let warmupPerClient = max(0, warmup / clients)
        let started = ContinuousClock.now
        let histograms = try await withThrowingTaskGroup(of: Histogram<UInt64>.self) { group in
            for index in 0..<clients {
                group.addTask {
                    try await DedicatedThread.run(name: "bench-client-\(index)") {
                        try Self.load(endpoint: endpoint, body: body, context: context, warmup: warmupPerClient, count: perClient)
                    }
                }
            }
            var all: [Histogram<UInt64>] = []
            for try await histogram in group { all.append(histogram) }
            return all
        }
        let elapsed = ContinuousClock.now - started
        var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        for histogram in histograms { latency.add(histogram) }
        let total = Int(latency.totalCount)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("command: \(command)  clients: \(clients)  requests: \(total)  (after \(warmupPerClient * clients) warm-up)")
        print(String(format: "throughput: %.0f requests/s over %.2f s (includes warm-up)", Double(total + warmupPerClient * clients) / seconds, seconds))
        print("latency µs:  p50 \(latency.valueAtPercentile(50))  p90 \(latency.valueAtPercentile(90))  p99 \(latency.valueAtPercentile(99))  p99.9 \(latency.valueAtPercentile(99.9))  max \(latency.max)")
    }

    /// One client: REQ socket, send, wait, record the round trip in microseconds.
    private static func load(endpoint: String, body: Data, context: ZMQContext, warmup: Int, count: Int) throws -> Histogram<UInt64> {
        let socket = try ZMQSocket(context: context, type: .req)
        defer { socket.close() }
        try socket.connect(endpoint)
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        let clock = ContinuousClock()
        for index in 0..<(warmup + count) {
            let sent = clock.now
            try socket.send([body])
            guard let reply = try socket.receive(), reply.count == 1 else { throw ValidationError("bad reply") }
            if index == 0, !(try Reply.decode(reply[0])).isOK {
                throw ValidationError("the command failed: \(String(decoding: reply[0], as: UTF8.self))")
            }
            if index >= warmup {
                let (seconds, attoseconds) = (clock.now - sent).components
                _ = histogram.record(UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000))
            }
        }
        return histogram
    }
}
