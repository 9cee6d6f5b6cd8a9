import Foundation
import TallyClient
import TallyProtocol
import TallyTesting
import Testing

/// Changes that reach a worker thread together commit in one transaction (shared transactions);
/// a worker that dies right after that commit, before any reply, leaves every change applied
/// once, and the retries the gateway sends to the next worker get the stored results. (The eight
/// requests usually reach the worker in one wake-up and commit together; when the first comes
/// alone, it commits alone, and the guarantee checked here is the same.)
@Suite(.timeLimit(.minutes(5))) struct SharedCommitCrashTests {
    @Test func aCrashAfterASharedCommitAppliesEveryChangeOnce() async throws {
        try await TallyStack.with() { stack in
            let token = try stack.accessToken(for: "cy")
            let client = try stack.client(timeout: .seconds(120))
            let names = (1...8).map { "Pocket \($0)" }
            // Sent before any accounts worker exists, so the gateway holds all eight and hands
            // them to the first worker at once, when it says READY.
            let replies = Task {
                try await withThrowingTaskGroup(of: Reply.self) { group in
                    for name in names {
                        group.addTask {
                            try await client.call(
                                "accounts.create", ["name": .string(name), "starting_balance": "1", "currency": "EUR"],
                                idempotencyKey: "create-\(name)", token: token)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            try await stack.waitUntil("the gateway holds the eight requests") {
                (try? await stack.serviceStatus("accounts"))?["queued"]?.intValue == 8
            }
            let doomed = try stack.startWorker("accounts", extraArguments: ["--exit-after-commit"])
            #expect(await doomed.waitForExit(timeout: .seconds(90)), "the worker exits right after its first commit")
            try stack.startWorker("accounts")
            let answered = try await replies.value
            #expect(answered.count == 8)
            #expect(answered.allSatisfy { $0.isOK }, "\(answered.filter { !$0.isOK })")
            #expect(Set(answered.compactMap { $0.result?["name"]?.stringValue }) == Set(names))

            let listed = try await client.call("accounts.list", ["limit": 50], token: token)
            let accounts = listed.result?["accounts"]?.arrayValue ?? []
            #expect(accounts.count == 8, "each change applied once: \(listed)")
            let feed = try await client.call("accounts.events", ["after": 0, "limit": 100], token: try stack.serviceAccessToken())
            let events = feed.result?["events"]?.arrayValue ?? []
            #expect(events.count == 8, "one event per change: \(feed)")
            #expect(events.compactMap { $0["sequence"]?.intValue } == Array(1...8))
        }
    }
}
