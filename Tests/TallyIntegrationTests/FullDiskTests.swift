import Foundation
import TallyProtocol
import TallyStorage
import TallyTesting
import Testing

/// A full disk under a worker's SQLite data: a small file system (`SmallFileSystem`) as the
/// stack's data directory, filled up while an accounts worker takes keyed writes.
@Suite(.enabled(if: SmallFileSystem.whyUnavailable == nil, Comment(rawValue: SmallFileSystem.whyUnavailable ?? "")))
struct FullDiskTests {
    @Test func writesAreRefusedClearlyWhileTheDiskIsFullAndResumeWhenSpaceReturns() async throws {
        let disk = try SmallFileSystem(megabytes: 4)
        defer { disk.unmount() }
        let database = "\(disk.path)/accounts.sqlite"
        // A file system that fills: SQLite files, whatever the run's engine.
        try await TallyStack.with(TallyStack.Options(workers: ["accounts": 1], database: .sqlite, dataDirectory: disk.path)) { stack in
            let worker = try #require(stack.processes(named: "accounts").first)
            let client = try stack.signedIn("ann", timeout: .seconds(20))
            var acknowledged: [String: JSONValue] = [:]  // name → id
            func create(_ index: Int) async throws -> Reply {
                let name = "A\(index)"
                let reply = try await client.call(
                    "accounts.create", ["name": .string(name), "starting_balance": "1.00", "currency": "EUR"], idempotencyKey: "full-\(index)")
                if let id = reply.result?["id"] { acknowledged[name] = id }
                return reply
            }
            for index in 0..<10 { #expect(try await create(index).isOK) }

            // The disk fills: writes go on until one is refused, each acknowledged or refused as
            // a full disk (never `internal`). The write-ahead log has room for a few more commits
            // where the last checkpoint left it; past that, the log cannot grow.
            try disk.fill()
            var next = 10
            var refusal: TallyError?
            while refusal == nil, next < 2_000 {
                let reply = try await create(next)
                next += 1
                if let error = reply.error {
                    #expect(error.code == .resourceExhausted, "\(error)")
                    refusal = error
                }
            }
            let refused = try #require(refusal, "a write was refused within \(next - 10) writes on a full disk")
            #expect(refused.message.contains("disk") && refused.message.contains("is full"), "\(refused.message)")
            #expect(refused.message.contains(disk.path), "names the directory to free space in: \(refused.message)")
            let refusedIndex = next - 1
            // Still full: refused again, the same way.
            #expect(try await create(next).error?.code == .resourceExhausted)
            next += 1

            // Nothing acknowledged is lost, and the file is sound, while the disk is still full.
            for (name, id) in acknowledged {
                #expect(try await client.call("accounts.get", ["id": id]).result?["name"] == .string(name))
            }
            #expect(throws: Never.self) { try SQLiteEngine.inspect(file: database) }

            // Space returns: the same worker takes writes again, the refused one (same key)
            // included, with no restart.
            try disk.free()
            let retried = try await create(refusedIndex)
            #expect(retried.isOK, "\(retried)")
            #expect(try await create(next).isOK)
            #expect(worker.isRunning, "the worker was not restarted")
            #expect(try await stack.serviceStatus("accounts")?["workers"]?.intValue == 1)

            // Each acknowledged write exactly once, as acknowledged; none of the refused ones.
            let stored = try await client.allAccounts()
            let names = stored.compactMap { $0["name"]?.stringValue }
            #expect(names.count == Set(names).count, "no write applied twice: \(names)")
            #expect(Dictionary(stored.map { ($0["name"]?.stringValue ?? "", $0["id"] ?? .null) }) { first, _ in first } == acknowledged)
        }
        // The worker's last checkpoint has copied the log into the file: still sound.
        #expect(throws: Never.self) { try SQLiteEngine.inspect(file: database) }
    }
}
