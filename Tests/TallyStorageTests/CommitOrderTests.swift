import Foundation
import Synchronization
import TallyProtocol
@testable import TallyStorage
import TallyTesting
import Testing

/// Events reach the sink in the order of their sequence numbers, however their changes were
/// committed: several threads at once, some through group commit, some in shared transactions.
@Suite struct CommitOrderTests {
    final class Collector: EventSink, @unchecked Sendable {
        private let lock = NSLock()
        private var sequences: [Int64] = []
        func publish(_ events: [CloudEvent]) {
            // A little time between taking the events and keeping them, so a publisher outside
            // the commit order would be overtaken here.
            usleep(50)
            lock.withLock { sequences += events.map(\.sequence) }
        }
        var published: [Int64] { lock.withLock { sequences } }
    }

    struct Noted: DomainEvent {
        let note: String
        var type: String { "notes.noted" }
        var subject: String? { nil }
    }

    static let notes = Migration("notes-v1") { session in
        try session.create(TableSchema("note", columns: [ColumnSchema("id", .identity), ColumnSchema("text", .text)]))
    }

    private let directory = TemporaryDirectory(prefix: "tally-commit-order")

    private func note(_ store: ServiceStore, _ text: String) throws {
        _ = try store.change(ChangeRequest(command: "notes.add", key: nil, scope: "notes.add:ann", fingerprint: .string(text))) { change in
            try change.session.execute("INSERT INTO note (text) VALUES (\(text))")
            change.record(Noted(note: text))
            return text
        }
    }

    @Test func eventsArePublishedInSequenceOrderAcrossThreadsAndPaths() async throws {
        let sink = Collector()
        let store = try ServiceStore(
            service: "notes", engine: try SQLiteEngine(directory: directory.path, name: "notes"), migrations: [Self.notes], sink: sink)
        let failures = Mutex(0)
        let finished = Mutex(0)
        let threads = (0..<6).map { thread in
            Thread {
                for round in 0..<20 {
                    do {
                        if thread % 2 == 0 {
                            let error = store.commitTogether {
                                for index in 0..<4 { try? note(store, "t\(thread)-r\(round)-\(index)") }
                            }
                            if error != nil { failures.withLock { $0 += 1 } }
                        } else {
                            try note(store, "t\(thread)-r\(round)")
                        }
                    } catch {
                        failures.withLock { $0 += 1 }
                    }
                }
                finished.withLock { $0 += 1 }
            }
        }
        for thread in threads { thread.start() }
        try await waitUntil("every thread has made its changes", timeout: .seconds(60)) { finished.withLock { $0 } == 6 }
        #expect(failures.withLock { $0 } == 0)
        let expected = 3 * 20 * 4 + 3 * 20
        let published = sink.published
        #expect(published.sorted() == Array(1...Int64(expected)), "every event once")
        let overtaken = zip(published, published.dropFirst()).filter { $0 > $1 }
        #expect(overtaken.isEmpty, "in sequence order; overtaken: \(overtaken.prefix(5))")
    }
}
