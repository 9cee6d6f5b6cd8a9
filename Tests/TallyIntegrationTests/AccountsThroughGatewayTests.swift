import Foundation
import TallyClient
import TallyProtocol
import TallyTesting
import Testing

/// The accounts service end to end: client → gateway → `tally worker accounts` processes sharing
/// one `accounts.sqlite` → back.
@Suite struct AccountsThroughGatewayTests {
    private func wallet(_ name: String = "Wallet", isDefault: Bool = false) -> JSONValue {
        ["name": .string(name), "currency": "USD", "starting_balance": "1250.50", "is_default": .bool(isDefault)]
    }

    @Test func createListGetUpdateDelete() async throws {
        try await TallyStack.with(workers: ["accounts": 1]) { stack in
            let client = try stack.signedIn("ann", userID: "2")
            let created = try await client.call("accounts.create", wallet(isDefault: true), id: "a-1", idempotencyKey: "create-1")
            #expect(created.id == "a-1")
            let account = try #require(created.result, "\(created)")
            #expect(account["name"] == "Wallet")
            #expect(account["starting_balance"] == "1250.50")
            #expect(account["is_default"] == true)
            #expect(account["owner"] == "2", "kept under the caller's user id")
            let id = try #require(account["id"])

            let yen = try await client.call("accounts.create", ["name": "Cash", "starting_balance": "3000"], locale: "ja_JP")
            #expect(yen.result?["currency"] == "JPY", "\(yen)")

            let list = try await client.call("accounts.list", ["limit": 1])
            #expect(list.result?["accounts"]?.arrayValue?.map { $0["name"] } == ["Wallet"], "\(list)")
            let rest = try await client.call("accounts.list", ["cursor": list.result?["next_cursor"] ?? .null])
            #expect(rest.result?["accounts"]?.arrayValue?.map { $0["name"] } == ["Cash"], "\(rest)")

            #expect(try await client.call("accounts.get", ["id": id]).result == account)
            #expect(try await stack.signedIn("bo", userID: "3").call("accounts.get", ["id": id]).error?.code == .notFound)

            let renamed = try await client.call("accounts.update", ["id": id, "name": "Pocket", "currency": "EUR"])
            #expect(renamed.result?["name"] == "Pocket", "\(renamed)")
            #expect(renamed.result?["currency"] == "EUR")
            #expect(renamed.result?["starting_balance"] == "1250.50")

            let cashID = try #require(yen.result?["id"])
            #expect(try await client.call("accounts.set_default", ["id": cashID]).result?["is_default"] == true)
            #expect(try await client.call("accounts.get", ["id": id]).result?["is_default"] == false)

            let deleted = try await client.call("accounts.delete", ["id": id])
            #expect(deleted.result?["name"] == "Pocket", "\(deleted)")
            #expect(try await client.call("accounts.get", ["id": id]).error?.code == .notFound)

            // The seed's error, in the envelope's language, naming the empty field.
            let blank = try await client.call(
                "accounts.create", ["name": "Card", "starting_balance": " "], locale: "zh-Hans-CN")
            #expect(blank.error == TallyError(.invalidArgument, "请填写账户名称和初始余额。", field: "args.starting_balance"))
            let taken = try await client.call("accounts.create", wallet("CASH"))
            #expect(taken.error?.code == .alreadyExists, "\(taken)")
        }
    }

    /// Two worker processes, two handler threads each, all writing the one SQLite file at once.
    @Test func twoWorkerProcessesWriteOneFileAtOnce() async throws {
        try await TallyStack.with() { stack in
            try stack.startWorker("accounts", concurrency: 2)
            try stack.startWorker("accounts", concurrency: 2)
            try await stack.waitForWorkers("accounts", count: 4)
            let client = try stack.signedIn("ann", timeout: .seconds(20))
            let clients = 10, perClient = 10
            let failures = try await withThrowingTaskGroup(of: [String].self) { group in
                for task in 0..<clients {
                    group.addTask {
                        var failures: [String] = []
                        for index in 0..<perClient {
                            let reply = try await client.call(
                                "accounts.create", wallet("t\(task)-\(index)", isDefault: index == perClient - 1),
                                idempotencyKey: "create-\(task)-\(index)")
                            if !reply.isOK { failures.append("\(reply)") }
                        }
                        return failures
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(failures.isEmpty, "\(failures.prefix(5))")
            let accounts = try await client.allAccounts()
            #expect(accounts.count == clients * perClient)
            #expect(Set(accounts.compactMap { $0["name"]?.stringValue }).count == clients * perClient)
            #expect(accounts.filter { $0["is_default"] == true }.count == 1, "one default, however the writes interleaved")
            #expect(!stack.logs.contains("locked"), "no 'database is locked' anywhere")
            #expect(try await stack.serviceStatus("accounts")?["errors"] == 0)
        }
    }

    @Test func retriesWithOneIdempotencyKeyMakeOneAccount() async throws {
        try await TallyStack.with() { stack in
            try stack.startWorker("accounts", concurrency: 2)
            try stack.startWorker("accounts", concurrency: 2)
            try await stack.waitForWorkers("accounts", count: 4)
            let client = try stack.signedIn("ann", timeout: .seconds(20))
            // The same request ten times at once, as impatient retries would send it, to four workers.
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await client.call("accounts.create", self.wallet(), idempotencyKey: "retry-1") }
                }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            #expect(replies.filter { !$0.isOK }.isEmpty, "\(replies.filter { !$0.isOK })")
            #expect(Set(replies.compactMap { $0.result?["id"] }).count == 1, "every retry gets the one account")
            #expect(try await client.allAccounts().count == 1)
            // The key belongs to that request.
            let reused = try await client.call("accounts.create", wallet("Bank"), idempotencyKey: "retry-1")
            #expect(reused.error?.code == .failedPrecondition)
        }
    }

    /// The worker running a create dies; the gateway gives the keyed request to another worker,
    /// and a later retry of it still finds the one account.
    @Test func aCreateWhoseWorkerDiesRunsOnceOnAnother() async throws {
        try await TallyStack.with() { stack in
            // Slower than the whole test: it is killed holding the request, whenever that is.
            let slow = try stack.startWorker("accounts", extraArguments: ["--handling-delay-ms", "120000"])
            try await slow.waitUntilReady()
            let client = try stack.signedIn("ann", timeout: .seconds(90))
            async let reply = client.call("accounts.create", wallet(), idempotencyKey: "dying-1")
            try await stack.waitUntil("the slow worker holds the create") {
                (try? await stack.serviceStatus("accounts"))?["busy"]?.intValue == 1
            }
            try await stack.startWorker("accounts").waitUntilReady()
            await slow.kill9()
            let answer = try await reply
            #expect(answer.result?["name"] == "Wallet", "\(answer)")
            #expect(stack.gateway.log.contains("re-dispatching"))
            let retry = try await client.call("accounts.create", wallet(), idempotencyKey: "dying-1")
            #expect(retry.result == answer.result)
            #expect(try await client.allAccounts().count == 1)
        }
    }

    @Test func dataSurvivesAWorkerRestart() async throws {
        try await TallyStack.with() { stack in
            let first = try stack.startWorker("accounts")
            try await stack.waitForWorkers("accounts", count: 1)
            let client = try stack.signedIn("ann", timeout: .seconds(10))
            let created = try #require(try await client.call("accounts.create", wallet(isDefault: true)).result)
            await first.kill9()

            try stack.startWorker("accounts")
            try await stack.waitUntil("a fresh accounts worker answers") {
                (try? await stack.signedIn("ann", timeout: .seconds(1)).call("accounts.list"))?.isOK == true
            }
            let id = try #require(created["id"])
            #expect(try await client.call("accounts.get", ["id": id]).result == created)
            let second = try await client.call("accounts.create", wallet("Bank"))
            #expect(second.result?["id"] == 2, "ids go on from where the old worker left them")
        }
    }
}
