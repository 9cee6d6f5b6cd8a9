import Foundation
import Synchronization
import TallyProtocol
import TallyTesting
import Testing

/// `tally backup` while a service takes writes, and `tally restore` of what it made.
@Suite struct BackupRestoreTests {
    @Test func aBackupTakenUnderWriteLoadHoldsEveryWriteAcknowledgedBeforeItAndRestores() async throws {
        // Backups copy SQLite files: this stack stays on SQLite whatever the run's engine.
        try await TallyStack.with(TallyStack.Options(workers: ["accounts": 1], database: .sqlite)) { stack in
            let client = try stack.client(timeout: .seconds(30))
            let ann = try stack.accessToken(for: "ann", lifetime: .seconds(3600))
            // Writes are numbered as they are sent, so that the test knows which ones began after the
            // backup ended: a write is visible to other connections at its commit but answered only
            // after the log's sync, so one answered after the backup may still be in it.
            let sent = Mutex(0)
            let acknowledged = Mutex<[(index: Int, name: String)]>([])
            let stop = Mutex(false)
            let writer = Task {
                while !stop.withLock({ $0 }) {
                    let index = sent.withLock { $0 += 1; return $0 }
                    let name = "A\(index)"
                    let args: JSONValue = ["name": .string(name), "starting_balance": "1.00", "currency": "USD"]
                    if try await client.call("accounts.create", args, idempotencyKey: "backup-\(index)", token: ann).isOK {
                        acknowledged.withLock { $0.append((index, name)) }
                    }
                }
            }
            // The bounds guard against a writer that stopped; each write is a commit and an fsync,
            // which a machine busy with other I/O can take seconds to do.
            try await stack.waitUntil("five writes are acknowledged", timeout: .seconds(120)) { acknowledged.withLock { $0.count } >= 5 }
            // Acknowledged before the backup starts, so committed before it begins.
            let beforeBackup = acknowledged.withLock { $0.map(\.name) }
            let file = stack.directory.appendingPathComponent("accounts-backup.sqlite").path
            let backup = try stack.launch("backup", ["backup", "--service", "accounts", "--to", file, "--data-dir", stack.dataDirectory])
            #expect(await backup.waitForExit(timeout: .seconds(120)))
            #expect(backup.exitStatus == 0, "\(backup.log)")
            #expect(backup.log.contains("integrity ok"), "\(backup.log)")
            // Sent after the backup ended, so committed after the copy was taken.
            let lastSentDuringBackup = sent.withLock { $0 }
            try await stack.waitUntil("writes go on after the backup", timeout: .seconds(120)) {
                acknowledged.withLock { $0.count { $0.index > lastSentDuringBackup } } >= 3
            }
            stop.withLock { $0 = true }
            try await writer.value
            let all = acknowledged.withLock { $0.map(\.name) }
            let afterBackup = acknowledged.withLock { $0.filter { $0.index > lastSentDuringBackup }.map(\.name) }

            // Restoring under a running worker is refused, and changes nothing.
            let refused = try stack.launch("restore", ["restore", "--service", "accounts", "--from", file, "--data-dir", stack.dataDirectory])
            #expect(await refused.waitForExit(timeout: .seconds(60)))
            #expect(refused.exitStatus != 0)
            #expect(refused.log.contains("stop the processes that use it"), "\(refused.log)")

            let worker = try #require(stack.processes(named: "accounts").first)
            #expect(await worker.stop())
            let restore = try stack.launch("restore", ["restore", "--service", "accounts", "--from", file, "--data-dir", stack.dataDirectory])
            #expect(await restore.waitForExit(timeout: .seconds(60)))
            #expect(restore.exitStatus == 0, "\(restore.log)")

            try await stack.startWorker("accounts").waitUntilReady()
            var names: Set<String> = []
            var cursor: JSONValue = .null
            repeat {
                let page = try await client.call("accounts.list", ["limit": 100, "cursor": cursor], token: ann)
                names.formUnion(page.result?["accounts"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
                cursor = page.result?["next_cursor"] ?? .null
            } while cursor != .null
            #expect(Set(beforeBackup).isSubset(of: names), "every write acknowledged before the backup is in it")
            #expect(names.isSubset(of: Set(all)), "nothing the service did not acknowledge")
            #expect(names.isDisjoint(with: afterBackup), "writes sent after the backup ended are not in it")
        }
    }

    /// The scenario: the notifier has handled shopping's events past a backup; the
    /// backup is restored, so shopping numbers its next events with sequences the notifier
    /// handled in the other history; one of them is made while the notifier is down. Started
    /// again, the notifier sees the restored database's new epoch, catches up from where it began,
    /// and alerts that event exactly once, and `alerts.status` shows it up to date.
    @Test func anEventMadeAfterARestoreWhileTheNotifierWasDownIsAlertedOnce() async throws {
        try await TallyStack.with(TallyStack.Options(workers: ["shopping": 1, "identity": 1], database: .sqlite)) { stack in
            let notifier = try await stack.startNotifier()
            let client = try stack.client(timeout: .seconds(30))
            let ann = try stack.signedIn("ann", userID: "2", timeout: .seconds(30))
            let list = try #require(try await ann.result("shopping.create_list", ["kind": "shopping", "name": "Week", "currency": "EUR"])["id"])
            func buy(_ item: String, at price: String) async throws {
                let added = try await ann.result("shopping.add_item", ["list_id": list, "name": .string(item)])
                let itemID = try #require(added["item"]?["id"])
                try await ann.result("shopping.mark_purchased", ["list_id": list, "item_id": itemID, "unit_price": .string(price)])
            }
            @Sendable func shoppingStatus() async -> JSONValue? {
                (try? await client.call("alerts.status"))?.result?["sources"]?.arrayValue?.first { $0["service"] == "shopping" }
            }
            func lastSequence() async throws -> Int64 {
                let feed = try await client.call("shopping.events", ["after": 0, "limit": 1], token: try stack.serviceAccessToken())
                return try #require(feed.result?["last_sequence"]?.intValue, "\(feed)")
            }
            @Sendable func alertTexts() async -> [String] {
                (try? await ann.call("alerts.list", ["after": 0]))?.result?["alerts"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? []
            }
            try await buy("Milk", at: "1.19")
            let file = stack.directory.appendingPathComponent("shopping-backup.sqlite").path
            let backup = try stack.launch("backup", ["backup", "--service", "shopping", "--to", file, "--data-dir", stack.dataDirectory])
            #expect(await backup.waitForExit(timeout: .seconds(120)))
            #expect(backup.exitStatus == 0, "\(backup.log)")
            // After the backup: the notifier handles more events than the restored database will make again.
            for item in ["Bread", "Eggs", "Tea", "Jam"] { try await ann.result("shopping.add_item", ["list_id": list, "name": .string(item)]) }
            let handledBefore = try await lastSequence()
            try await stack.waitUntil("the notifier has handled every shopping event", timeout: .seconds(60)) {
                await shoppingStatus()?["handled_through"]?.intValue == handledBefore
            }

            #expect(await notifier.stop())
            let worker = try #require(stack.processes(named: "shopping").first)
            #expect(await worker.stop())
            let restore = try stack.launch("restore", ["restore", "--service", "shopping", "--from", file, "--data-dir", stack.dataDirectory])
            #expect(await restore.waitForExit(timeout: .seconds(60)))
            #expect(restore.exitStatus == 0, "\(restore.log)")
            try await stack.startWorker("shopping").waitUntilReady()
            // Made while the notifier is down: its publish reaches nobody, and its sequences are
            // ones the notifier handled before the restore.
            try await buy("Milk", at: "1.39")
            let last = try await lastSequence()
            #expect(last <= handledBefore, "the restored database reuses sequences (\(last) after \(handledBefore))")

            try await stack.startNotifier()
            try await stack.waitUntil("the notifier alerts the purchase made after the restore", timeout: .seconds(60)) {
                await alertTexts().contains { $0.contains("1.39") }
            }
            try await stack.waitUntil("alerts.status shows shopping handled up to date", timeout: .seconds(60)) {
                await shoppingStatus()?["handled_through"]?.intValue == last
            }
            let status = try #require(await shoppingStatus())
            #expect(status["lag_events"] == 0, "\(status)")
            #expect(status["newest_known"]?.intValue == last, "\(status)")
            let texts = await alertTexts()
            #expect(texts.filter { $0.contains("1.39") }.count == 1, "\(texts)\n\(stack.logs)")
        }
    }

    @Test func backupAndRestoreSayToUsePostgreSQLsToolsWhenTheDataIsThere() async throws {
        let stack = try TallyStack(options: TallyStack.Options(database: .sqlite))
        defer { Task { await stack.stop() } }
        let environment = ["TALLY_DATABASE_URL": "postgres://tally@db.invalid/tally"]
        for arguments in [
            ["backup", "--service", "accounts", "--to", stack.directory.appendingPathComponent("b.sqlite").path],
            ["restore", "--service", "accounts", "--from", stack.directory.path],
        ] {
            let command = try stack.launch(arguments[0], arguments + ["--data-dir", stack.dataDirectory], environment: environment)
            #expect(await command.waitForExit(timeout: .seconds(60)))
            #expect(command.exitStatus != 0)
            #expect(command.log.contains("pg_dump"), "\(command.log)")
        }
    }
}
