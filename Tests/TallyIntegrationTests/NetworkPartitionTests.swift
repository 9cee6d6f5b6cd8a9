import Foundation
import Synchronization
import TallyProtocol
import TallyTesting
import Testing

/// The network between a gateway's host and a worker's host cut for seconds, then restored
/// (`VirtualHosts.cut`), while clients send keyed writes: no call goes unanswered past its
/// deadline, the worker rejoins by itself, and resending refused writes with their keys applies
/// each exactly once.
@Suite(.enabled(if: VirtualHosts.whyUnavailable == nil, Comment(rawValue: VirtualHosts.whyUnavailable ?? "")))
struct NetworkPartitionTests {
    @Test func callsAreAnsweredWithinTheirDeadlineAcrossACutLinkAndNothingIsLostOrDoubled() async throws {
        let hosts = try VirtualHosts(count: 2)
        defer { hosts.tearDown() }
        // TCP between hosts is under CURVE, as a gateway insists; the worker's data stays on its
        // host: SQLite files, whatever the run's engine.
        let stack = try TallyStack(options: TallyStack.Options(curve: true, database: .sqlite))
        do {
            try await run(stack, hosts)
        } catch {
            Issue.record("the processes' logs:\n\(stack.logs)")
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    private struct Call: Sendable {
        let key: String
        let name: String
        let reply: Reply?
        let failure: String?
    }

    private func run(_ stack: TallyStack, _ hosts: VirtualHosts) async throws {
        // The gateway on host 0, its clients (this process) on its ipc frontend; the worker on
        // host 1, over TCP: the link cut is the one between them.
        let gatewayHost = hosts.hosts[0], workerHost = hosts.hosts[1]
        let backend = "tcp://\(gatewayHost.address):5556"
        try await stack.startGateway(backend: backend, on: gatewayHost)
        let worker = try stack.startWorker("accounts", backend: backend, on: workerHost)
        try await worker.waitUntilReady()

        // Each call waits 3 s, once, on the client's own thread; the gateway is asked to answer
        // within 2.75 s (`TallyClient`). A call with no answer in that time fails as "no reply".
        // (Not timed in the test's task, which can resume late while other tests hold the test
        // process's few pool threads.)
        let client = try stack.signedIn("ann", timeout: .seconds(3))
        @Sendable func create(_ name: String, key: String) async -> Call {
            do {
                let reply = try await client.call(
                    "accounts.create", ["name": .string(name), "starting_balance": "1.00", "currency": "EUR"], idempotencyKey: key)
                return Call(key: key, name: name, reply: reply, failure: nil)
            } catch {
                return Call(key: key, name: name, reply: nil, failure: "\(error)")
            }
        }

        // Four writers, each sending its next write as soon as the last is answered, from before
        // the cut until after the worker is back.
        let writing = Writing()
        defer { writing.going.store(false, ordering: .relaxed) }  // should the test fail before the writers are stopped
        let writers = (0..<4).map { writer in
            Task { @Sendable in
                var calls: [Call] = []
                var index = 0
                while writing.going.load(ordering: .relaxed) {
                    let call = await create("w\(writer)-\(index)", key: "partition-\(writer)-\(index)")
                    if call.reply?.isOK == true { writing.acknowledged.add(1, ordering: .relaxed) }
                    calls.append(call)
                    index += 1
                }
                return calls
            }
        }
        try await stack.waitUntil("writes are acknowledged before the cut", timeout: .seconds(30)) {
            writing.acknowledged.load(ordering: .relaxed) >= 8
        }

        // The cut lasts 5 s: longer than the heartbeats on either side tolerate (2 s of silence),
        // so the gateway drops the worker and the worker gives up on the gateway.
        try hosts.cut(workerHost)
        try await Task.sleep(for: .seconds(5))
        try hosts.reconnect(workerHost)
        let beforeRejoin = writing.acknowledged.load(ordering: .relaxed)

        // The worker rejoins by itself (the same process) and writes are acknowledged again.
        try await stack.waitUntil("the worker has rejoined and writes are acknowledged again", timeout: .seconds(30)) {
            writing.acknowledged.load(ordering: .relaxed) >= beforeRejoin + 8
        }
        #expect(try await stack.serviceStatus("accounts")?["workers"]?.intValue == 1)
        #expect(worker.isRunning, "the worker rejoined; it was not restarted")
        #expect(worker.log.contains("gateway silent; reconnecting"), "the worker gave the gateway up during the cut: \(worker.log)")
        writing.going.store(false, ordering: .relaxed)
        var calls: [Call] = []
        for writer in writers { calls += await writer.value }

        // Every call was answered by the gateway within the client's timeout: acknowledged, or
        // refused as not done in time or with no worker to take it.
        for call in calls {
            #expect(call.failure == nil, "\(call.key) had no answer: \(call.failure ?? "")")
            if let error = call.reply?.error {
                #expect([.deadlineExceeded, .unavailable].contains(error.code), "\(call.key): \(error)")
            }
        }
        let refused = calls.filter { $0.reply?.isOK != true }
        #expect(!refused.isEmpty, "the cut was felt: some calls were refused during it")

        // Resent with their keys, the refused writes are acknowledged: applied now, or (when the
        // worker had committed one whose answer the cut lost) answered with the stored result.
        var ids: [String: JSONValue] = [:]  // name → id
        for call in calls { if let id = call.reply?.result?["id"] { ids[call.name] = id } }
        for call in refused {
            let again = await create(call.name, key: call.key)
            let id = try #require(again.reply?.result?["id"], "\(call.key) resent: \(again.reply.map { "\($0)" } ?? again.failure ?? "")")
            ids[call.name] = id
        }
        // One acknowledged before the cut, resent: the stored answer, not a second account.
        let first = try #require(calls.first { $0.reply?.isOK == true })
        #expect(await create(first.name, key: first.key).reply?.result?["id"] == ids[first.name])

        // Every write exactly once, with the id it was acknowledged with.
        let stored = try await client.allAccounts()
        let names = stored.compactMap { $0["name"]?.stringValue }
        #expect(names.count == Set(names).count, "no write applied twice: \(names.sorted())")
        #expect(Dictionary(stored.map { ($0["name"]?.stringValue ?? "", $0["id"] ?? .null) }) { first, _ in first } == ids)
    }
}

/// The writers' shared state: whether they go on, and how many writes have been acknowledged.
private final class Writing: Sendable {
    let going = Atomic(true)
    let acknowledged = Atomic(0)
}
