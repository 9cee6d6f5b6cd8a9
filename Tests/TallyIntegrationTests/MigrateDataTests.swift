import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// `tally migrate-data`: a deployment that ran on SQLite files carries on, on PostgreSQL, where it
/// left off: its data, its stored idempotent results and its event sequences.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.whyUnavailable ?? "")))
struct MigrateDataTests {
    @Test func aSQLiteDeploymentMovesToPostgreSQLAndCarriesOnWhereItLeftOff() async throws {
        try await TallyStack.with(TallyStack.Options(workers: ["accounts": 1, "shopping": 1], database: .sqlite)) { stack in
            let client = try stack.client(timeout: .seconds(30))
            let ann = try stack.accessToken(for: "ann", lifetime: .seconds(3600))
            func create(_ index: Int) async throws -> JSONValue {
                let reply = try await client.call(
                    "accounts.create", ["name": .string("A\(index)"), "starting_balance": "12345678901234567.89", "currency": "USD"],
                    idempotencyKey: "move-\(index)", token: ann)
                return try #require(reply.result, "\(reply)")
            }
            var created: [JSONValue] = []
            for index in 1...5 { created.append(try await create(index)) }
            let list = try #require(try await client.call(
                "shopping.create_list", ["kind": "shopping", "name": "Week", "currency": "EUR"], token: ann).result?["id"])
            #expect(try await client.call("shopping.add_item", ["list_id": list, "name": "Milk"], token: ann).isOK)

            // While the workers have the files open, nothing is copied.
            let url = try PostgresCluster.shared().makeDatabase()
            let busy = try stack.launch("migrate-data", ["migrate-data", "--data-dir", stack.dataDirectory, "--database", url])
            #expect(await busy.waitForExit(timeout: .seconds(120)))
            #expect(busy.exitStatus == 1, "\(busy.log)")
            #expect(busy.log.contains("is open in another process"), "\(busy.log)")

            for name in ["accounts", "shopping"] {
                for process in stack.processes(named: name) { #expect(await process.stop()) }
            }
            let move = try stack.launch("migrate-data", ["migrate-data", "--data-dir", stack.dataDirectory, "--database", url])
            #expect(await move.waitForExit(timeout: .seconds(120)))
            #expect(move.exitStatus == 0, "\(move.log)")
            #expect(move.log.contains("copied accounts: "), "\(move.log)")
            #expect(move.log.contains("copied shopping: "), "\(move.log)")

            // The workers now run on PostgreSQL, and no longer touch the files.
            try await stack.startWorker("accounts", extraArguments: ["--database", url]).waitUntilReady()
            try await stack.startWorker("shopping", extraArguments: ["--database", url]).waitUntilReady()
            try FileManager.default.removeItem(atPath: "\(stack.dataDirectory)/accounts.sqlite")

            let accounts = try await client.call("accounts.list", ["limit": 100], token: ann)
            #expect(accounts.result?["accounts"]?.arrayValue?.compactMap { $0["name"]?.stringValue }.sorted() == (1...5).map { "A\($0)" })
            #expect(accounts.result?["accounts"]?.arrayValue?.first?["starting_balance"] == "12345678901234567.89", "\(accounts)")
            // A retry of a write made on SQLite gets its stored result, not a second account.
            #expect(try await create(3) == created[2])
            // New writes go on: a new id, and the next event numbers.
            let sixth = try await create(6)
            #expect(!created.map { $0["id"] }.contains(sixth["id"]), "\(sixth)")
            let feed = try await client.call("accounts.events", ["after": 0], token: try stack.serviceAccessToken())
            #expect(feed.result?["events"]?.arrayValue?.compactMap { $0["sequence"]?.intValue } == Array(1...6), "\(feed)")
            let items = try await client.call("shopping.get_list", ["list_id": list], token: ann)
            #expect(items.result?["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Milk"], "\(items)")
            #expect(try await client.call("shopping.add_item", ["list_id": list, "name": "Bread"], token: ann).isOK)

            // A second copy into the same database is refused: it never merges or overwrites.
            for name in ["accounts", "shopping"] {
                for process in stack.processes(named: name) { #expect(await process.stop()) }
            }
            let again = try stack.launch("migrate-data", ["migrate-data", "--data-dir", stack.dataDirectory, "--database", url, "--service", "shopping"])
            #expect(await again.waitForExit(timeout: .seconds(120)))
            #expect(again.exitStatus == 1)
            #expect(again.log.contains("already holds tables"), "\(again.log)")
        }
    }
}
