import Foundation
import TallyTesting
import Testing

/// How many MDP workers (threads) a worker process runs when the operator does not say: one per
/// core, but one for a service whose changes share transactions, where a second thread's writes
/// would only take turns with the first's (`ServiceHandler.defaultConcurrency`), on SQLite and on
/// PostgreSQL alike.
@Suite struct WorkerThreadDefaultsTests {
    @Test func writingServicesRunOneThreadAndOthersOnePerCore() async throws {
        try await TallyStack.with(workers: [:]) { stack in
            let cores = ProcessInfo.processInfo.activeProcessorCount
            let expected = ["calc": cores, "accounts": 1, "shopping": 1, "roster": 1]
            for service in expected.keys.sorted() { try await stack.startWorker(service, concurrency: nil).waitUntilReady() }
            for (service, threads) in expected {
                #expect(try await stack.serviceStatus(service)?["workers"]?.intValue == Int64(threads), "\(service)")
            }
        }
    }

    @Test func theFlagAndTheEnvironmentSetItForEveryService() async throws {
        try await TallyStack.with(workers: [:]) { stack in
            try await stack.startWorker("shopping", concurrency: nil, environment: ["TALLY_WORKER_CONCURRENCY": "3"]).waitUntilReady()
            try await stack.startWorker("accounts", concurrency: 2).waitUntilReady()
            #expect(try await stack.serviceStatus("shopping")?["workers"]?.intValue == 3)
            #expect(try await stack.serviceStatus("accounts")?["workers"]?.intValue == 2)
        }
    }
}
