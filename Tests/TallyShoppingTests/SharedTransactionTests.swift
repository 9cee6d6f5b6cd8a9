import Foundation
import Logging
import Synchronization
import TallyProtocol
import TallyShopping
@testable import TallyStorage
import TallyTesting
import TallyWorker
import Testing

/// Requests that reach a worker thread together, through the worker's own request processor on a
/// real database (SQLite's busy timeout, in the second test, keeps that one on SQLite): their changes commit in one transaction, each answered only after it, and a
/// transaction that cannot commit answers every change with why.
@Suite struct SharedTransactionTests {
    /// Stands in for the authentication middleware: every request comes from ann.
    struct SignedIn: RequestMiddleware {
        func respond(to request: Request, next: (Request) throws -> any Encodable & Sendable) throws -> any Encodable & Sendable {
            var request = request
            request.context.caller = Caller(userID: "ann", username: "ann")
            return try next(request)
        }
    }

    /// Keeps what the middleware is told of each reply (`RequestMiddleware.answered`), in order.
    final class Told: RequestMiddleware {
        private let kept = Mutex<[AnsweredRequest]>([])
        var requests: [AnsweredRequest] { kept.withLock { $0 } }
        func answered(_ request: AnsweredRequest) { kept.withLock { $0.append(request) } }
    }

    private let directory = TemporaryDirectory(prefix: "tally-shared-transaction")

    private func service(busyTimeout: Duration = .seconds(10)) throws -> ShoppingService {
        ShoppingService(store: try ShoppingStore(engine: try SQLiteEngine(directory: directory.path, name: "shopping", busyTimeout: busyTimeout)))
    }

    private func processor(_ service: ShoppingService, telling told: Told? = nil) -> RequestProcessor {
        RequestProcessor(handler: service, middleware: (told.map { [$0] } ?? []) + [SignedIn()], logger: Logger(label: "test"))
    }

    private func body(_ id: String, _ command: String, _ args: JSONValue, key: String? = nil) -> [Data] {
        [Envelope(id: id, command: command, args: args, idempotencyKey: key).encoded()]
    }

    private func addItem(_ id: String, list: Int64, _ name: String) -> [Data] {
        body(id, "shopping.add_item", ["list_id": .integer(list), "name": .string(name)], key: "key-\(id)")
    }

    private func itemCount(_ store: ServiceStore) throws -> Int? {
        try store.read { try $0.fetchValue("SELECT COUNT(*) FROM shopping_item", as: Int.self) }
    }

    @Test func changesThatArriveTogetherCommitOnceAndAreAnsweredAfterIt() throws {
        // Group commit is the store's, not SQLite's: this runs on PostgreSQL too when asked.
        let database = try TestDatabase(name: "shopping", directory: directory.path)
        let service = ShoppingService(store: try ShoppingStore(engine: try database.engine()))
        let store = service.resources.store
        let created = try Reply.decode(processor(service).process(body("0", "shopping.create_list", ["kind": "shopping", "name": "Week", "currency": "EUR"])))
        let list = try #require(created.result?["id"]?.intValue)
        let transactionsBefore = store.commits.transactions.load(ordering: .relaxed)
        let eventsBefore = try store.lastEventSequence()

        let requests = [
            addItem("1", list: list, "Milk"),
            body("2", "shopping.lists", [:]),
            addItem("3", list: list, "Bread"),
            addItem("4", list: 999_999, "Nowhere"),  // fails alone
            [Data("not json".utf8)],
            addItem("5", list: list, "Eggs"),
        ]
        var answered: [(index: Int, reply: Reply, itemsCommitted: Int?)] = []
        let told = Told()
        try processor(service, telling: told).process(requests) { index, reply, _ in
            // What another connection sees at the moment each reply is handed over.
            answered.append((index, try Reply.decode(reply), try itemCount(store)))
        }

        #expect(answered.map(\.index) == [1, 4, 0, 2, 3, 5], "the query and the unreadable request first, then the changes")
        #expect(answered.prefix(2).map(\.itemsCommitted) == [0, 0], "answered before the changes ran")
        #expect(answered.dropFirst(2).allSatisfy { $0.itemsCommitted == 3 }, "each change is answered only after the commit")
        let byIndex = Dictionary(uniqueKeysWithValues: answered.map { ($0.index, $0.reply) })
        #expect([0, 2, 5].allSatisfy { byIndex[$0]?.isOK == true })
        #expect(byIndex[3]?.error?.code == .notFound)
        #expect(byIndex[4]?.error?.code == .invalidArgument)
        #expect(byIndex[1]?.result?["lists"]?.arrayValue?.count == 1)
        // The middleware hears of every reply once, as it was sent, the unreadable one included.
        #expect(told.requests.map(\.id) == answered.map(\.reply.id))
        #expect(told.requests.map(\.error) == answered.map(\.reply.error?.code))
        #expect(told.requests.map(\.command) == ["shopping.lists", nil] + Array(repeating: "shopping.add_item", count: 4))
        #expect(store.commits.transactions.load(ordering: .relaxed) == transactionsBefore + 1, "four changes, one transaction")
        let events = try store.events(after: eventsBefore, limit: 10)
        #expect(events.map(\.sequence) == [eventsBefore + 1, eventsBefore + 2, eventsBefore + 3], "gap-free past the one that failed")
        #expect(events.map { $0.data["item"]?["name"] } == ["Milk", "Bread", "Eggs"])

        // Each key's result was stored in that transaction: a retry of the whole batch changes nothing.
        var retried: [Int: Reply] = [:]
        try processor(service).process(requests) { index, reply, _ in retried[index] = try Reply.decode(reply) }
        #expect([0, 2, 5].allSatisfy { retried[$0]?.result == byIndex[$0]?.result })
        #expect(try itemCount(store) == 3)
    }

    @Test func aTransactionThatCannotCommitAnswersEveryChangeWithWhy() async throws {
        let service = try service(busyTimeout: .milliseconds(200))
        let store = service.resources.store
        let created = try Reply.decode(processor(service).process(body("0", "shopping.create_list", ["kind": "shopping", "name": "Week", "currency": "EUR"])))
        let list = try #require(created.result?["id"]?.intValue)

        // Another process's writer holds the database past the busy timeout.
        let other = try SQLiteEngine(directory: directory.path, name: "shopping")
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? other.write { _ in
                holding.signal()
                release.wait()
            }
        }
        holder.start()
        holding.wait()
        defer { release.signal() }

        var replies: [Int: Reply] = [:]
        let told = Told()
        try processor(service, telling: told).process([addItem("1", list: list, "Milk"), body("2", "shopping.lists", [:]), addItem("3", list: list, "Bread")]) {
            index, reply, _ in replies[index] = try Reply.decode(reply)
        }
        #expect(replies[1]?.isOK == true, "a query reads beside the writer")
        #expect(replies[0]?.error?.code == .unavailable)
        #expect(replies[2]?.error?.code == .unavailable)
        #expect(replies[0]?.id == "1" && replies[2]?.id == "3")
        // Told after the commit failed: the changes' errors, not the successes they had inside it.
        #expect(told.requests.map(\.id) == ["2", "1", "3"])
        #expect(told.requests.map(\.error) == [nil, .unavailable, .unavailable])
        release.signal()
        #expect(try itemCount(store) == 0)
        #expect(try store.lastEventSequence() == 1, "only the list's event")
    }
}
