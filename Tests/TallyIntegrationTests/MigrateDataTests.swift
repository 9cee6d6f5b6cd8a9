import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// `tally migrate-data`: a deployment that ran on SQLite files carries on, on PostgreSQL, where it
/// left off: every service's data, its stored idempotent results and its event sequences.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.whyUnavailable ?? "")))
struct MigrateDataTests {
    static let stateful = ["accounts", "currency", "identity", "roster", "shopping"]

    @Test func aSQLiteDeploymentMovesToPostgreSQLAndCarriesOnWhereItLeftOff() async throws {
        let workers = Dictionary(uniqueKeysWithValues: Self.stateful.map { ($0, 1) })
        try await TallyStack.with(TallyStack.Options(workers: workers, database: .sqlite)) { stack in
            try await stack.startNotifier()
            let client = try stack.client(timeout: .seconds(30))
            let ann = try stack.signedIn("ann", timeout: .seconds(30))
            func create(_ index: Int) async throws -> JSONValue {
                try await ann.result(
                    "accounts.create", ["name": .string("A\(index)"), "starting_balance": "12345678901234567.89", "currency": "USD"],
                    idempotencyKey: "move-\(index)")
            }
            var created: [JSONValue] = []
            for index in 1...5 { created.append(try await create(index)) }
            let list = try #require(try await ann.result("shopping.create_list", ["kind": "shopping", "name": "Week", "currency": "EUR"])["id"])
            try await ann.result("shopping.add_item", ["list_id": list, "name": "Milk"])
            let team = try await RosterTeam.create(by: ann, employees: [])
            _ = try await stack.signUpAndLogIn("bea", password: "a long enough password")
            try await stack.waitUntil("the currency data is loaded", timeout: .seconds(60)) {
                (try? await client.call("currency.status"))?.result?["state"] == "ready"
            }
            // The notifier has handled every event (its records of them are part of its data).
            try await stack.waitUntil("the notifier is up to date", timeout: .seconds(60)) {
                let status = try? await client.call("alerts.list", token: ann.token)
                return status?.isOK == true
            }

            // Each database's epoch and the notifier's progress in it come along as they are.
            func accountsFeed() async throws -> JSONValue {
                try #require(try await client.call("accounts.events", ["after": 0], token: try stack.serviceAccessToken()).result)
            }
            @Sendable func accountsHandledThrough() async -> Int64? {
                (try? await client.call("alerts.status"))?.result?["sources"]?.arrayValue?
                    .first { $0["service"] == "accounts" }?["handled_through"]?.intValue
            }
            let before = try await accountsFeed()
            let epoch = try #require(before["epoch"]?.stringValue)
            try await stack.waitUntil("the notifier has handled every accounts event", timeout: .seconds(60)) {
                await accountsHandledThrough() == before["last_sequence"]?.intValue
            }

            // While the processes have the files open, nothing is copied.
            let url = try PostgresCluster.shared().makeDatabase()
            let busy = try stack.launch("migrate-data", ["migrate-data", "--data-dir", stack.dataDirectory, "--database", url])
            #expect(await busy.waitForExit(timeout: .seconds(120)))
            #expect(busy.exitStatus == 1, "\(busy.log)")
            #expect(busy.log.contains("is open in another process"), "\(busy.log)")

            for name in Self.stateful + ["notifier"] {
                for process in stack.processes(named: name) { #expect(await process.stop()) }
            }
            let move = try stack.launch("migrate-data", ["migrate-data", "--data-dir", stack.dataDirectory, "--database", url])
            #expect(await move.waitForExit(timeout: .seconds(300)))
            #expect(move.exitStatus == 0, "\(move.log)")
            for name in Self.stateful + ["notifier"] {
                #expect(move.log.contains("copied \(name): "), "\(move.log)")
            }

            // Kept aside for the second copy below.
            let elsewhere = stack.directory.appendingPathComponent("elsewhere").path
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: "\(stack.dataDirectory)/shopping.sqlite\(suffix)") {
                try FileManager.default.copyItem(atPath: "\(stack.dataDirectory)/shopping.sqlite\(suffix)", toPath: "\(elsewhere)/shopping.sqlite\(suffix)")
            }

            // Every process now runs on PostgreSQL; the files are gone, so nothing reads them.
            for name in Self.stateful {
                try FileManager.default.removeItem(atPath: "\(stack.dataDirectory)/\(name).sqlite")
                try await stack.startWorker(name, extraArguments: ["--database", url]).waitUntilReady()
            }
            try FileManager.default.removeItem(atPath: "\(stack.dataDirectory)/notifier.sqlite")
            try await stack.startNotifier(extraArguments: ["--database", url])

            let accounts = try await ann.result("accounts.list", ["limit": 100])
            #expect(accounts["accounts"]?.arrayValue?.compactMap { $0["name"]?.stringValue }.sorted() == (1...5).map { "A\($0)" })
            #expect(accounts["accounts"]?.arrayValue?.first?["starting_balance"] == "12345678901234567.89", "\(accounts)")
            // A retry of a write made on SQLite gets its stored result, not a second account.
            #expect(try await create(3) == created[2])
            // New writes go on: a new id, and the next event numbers.
            let sixth = try await create(6)
            #expect(!created.map { $0["id"] }.contains(sixth["id"]), "\(sixth)")
            let feed = try await accountsFeed()
            #expect(feed["events"]?.arrayValue?.compactMap { $0["sequence"]?.intValue } == Array(1...6), "\(feed)")
            #expect(feed["epoch"]?.stringValue == epoch, "the same history: \(feed)")
            #expect(feed["events"]?.arrayValue?.allSatisfy { $0["epoch"]?.stringValue == epoch } == true, "\(feed)")
            try await stack.waitUntil("the notifier on PostgreSQL handles the new event", timeout: .seconds(60)) {
                await accountsHandledThrough() == 6
            }
            let notifierLog = stack.processes(named: "notifier").last?.log ?? ""
            #expect(!notifierLog.contains("new history"), "its progress counts in the epoch it had: \(notifierLog)")
            let items = try await ann.result("shopping.get_list", ["list_id": list])
            #expect(items["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Milk"], "\(items)")
            try await ann.result("shopping.add_item", ["list_id": list, "name": "Bread"])
            let teams = try await ann.result("roster.teams")
            #expect(teams["teams"]?.arrayValue?.compactMap { $0["id"]?.intValue } == [team.id], "\(teams)")
            // Bea's password hash came along: she logs in on PostgreSQL as she did on SQLite.
            _ = try await stack.logIn("bea", password: "a long enough password")
            let status = try await client.call("currency.status")
            #expect(status.result?["state"] == "ready", "\(status)")
            #expect(try await client.call("currency.get", ["code": "CHF"]).result?["name"] == "Swiss Franc")
            #expect(try await client.call("alerts.list", token: ann.token).isOK)

            // A second copy into the same database is refused: it never merges or overwrites.
            let again = try stack.launch("migrate-data", ["migrate-data", "--data-dir", elsewhere, "--database", url])
            #expect(await again.waitForExit(timeout: .seconds(120)))
            #expect(again.exitStatus == 1)
            #expect(again.log.contains("already holds tables"), "\(again.log)")
            #expect(try await ann.result("shopping.get_list", ["list_id": list])["items"]?.arrayValue?.count == 2, "the data on PostgreSQL is untouched")
        }
    }
}
