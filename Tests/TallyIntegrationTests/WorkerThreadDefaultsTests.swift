import Foundation
import TallyTesting
import Testing

/// How many MDP workers (threads) a worker process runs when the operator does not say: one per
/// core, but one for a service whose changes share transactions on SQLite, where a second thread's
/// writes would only take turns with the first's (`ServiceHandler.defaultConcurrency`).
@Suite struct WorkerThreadDefaultsTests {
    @Test func writingServicesOnSQLiteRunOneThreadAndOthersOnePerCore() async throws {
        try await TallyStack.with(workers: [:]) { stack in
            let cores = ProcessInfo.processInfo.activeProcessorCount
            // PostgreSQL runs writers of different connections at once: one per core there too.
            let writers = stack.databaseURL == nil ? 1 : cores
            let expected = ["calc": cores, "accounts": writers, "shopping": writers, "roster": writers]
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
