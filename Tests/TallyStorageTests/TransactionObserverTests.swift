import Foundation
import Synchronization
import TallyProtocol
import TallyStorage
import TallyTesting
import Testing

/// A store's `TransactionObserver` (what traces a change's transaction) hears of each change once,
/// after the transaction holding it has committed, with how many changes that transaction held.
@Suite struct TransactionObserverTests {
    final class Recorder: TransactionObserver, @unchecked Sendable {
        struct Heard: Sendable {
            let command: String
            let shared: Bool
            let failed: Bool
            let changes: Int
            /// Notes in the table when the observer heard: what a committed transaction shows a reader.
            let committedRows: Int
        }
        private let heard = Mutex<[Heard]>([])
        var engine: SQLiteEngine?

        func begin(_ request: ChangeRequest, service: String, shared: Bool) -> @Sendable (TransactionOutcome) -> Void {
            { [self] outcome in
                // Read on another connection: only what has committed is seen.
                let rows = (try? engine?.read { try $0.fetchValue("SELECT COUNT(*) FROM note", as: Int.self) }) ?? nil
                heard.withLock {
                    $0.append(Heard(command: request.command, shared: shared, failed: outcome.failure != nil, changes: outcome.changes, committedRows: rows ?? -1))
                }
            }
        }
        var all: [Heard] { heard.withLock { $0 } }
    }

    static let notes = Migration("notes-v1") { session in
        try session.create(TableSchema("note", columns: [ColumnSchema("id", .identity), ColumnSchema("text", .text)]))
    }

    private let directory = TemporaryDirectory(prefix: "tally-transaction-observer")

    private func store(_ recorder: Recorder) throws -> ServiceStore {
        let engine = try SQLiteEngine(directory: directory.path, name: "notes")
        recorder.engine = engine
        return try ServiceStore(service: "notes", engine: engine, migrations: [Self.notes], observer: recorder)
    }

    private func note(_ store: ServiceStore, _ text: String, failing: Bool = false) throws {
        _ = try store.change(ChangeRequest(command: "notes.add", key: nil, scope: "notes.add:ann", fingerprint: .string(text))) { change in
            try change.session.execute("INSERT INTO note (text) VALUES (\(text))")
            if failing { throw TallyError(.failedPrecondition, "refused", field: "text") }
            return text
        }
    }

    @Test func aChangeOfItsOwnIsHeardOnceCommitted() throws {
        let recorder = Recorder()
        let store = try store(recorder)
        try note(store, "one")
        let heard = try #require(recorder.all.first)
        #expect(recorder.all.count == 1)
        #expect(!heard.shared && !heard.failed && heard.changes == 1)
        #expect(heard.committedRows == 1, "heard after the commit, not before")
    }

    @Test func aBatchsChangesAreHeardAfterTheSharedCommitWithItsSize() throws {
        let recorder = Recorder()
        let store = try store(recorder)
        let error = store.commitTogether {
            try? note(store, "a")
            try? note(store, "b", failing: true)
            try? note(store, "c")
        }
        #expect(error == nil)
        let heard = recorder.all
        #expect(heard.count == 3)
        // The failed change is heard at once, with its own error; the others once all three committed.
        #expect(heard.first?.failed == true && heard.first?.changes == 0)
        for kept in heard.dropFirst() {
            #expect(kept.shared && !kept.failed)
            #expect(kept.changes == 3, "the transaction held three changes, one rolled back to its savepoint")
            #expect(kept.committedRows == 2)
        }
    }
}
