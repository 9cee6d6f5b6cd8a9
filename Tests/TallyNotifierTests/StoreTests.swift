import Foundation
import GRDB
import TallyNotifier
import TallyProtocol
import TallyStorage
import Testing

@Suite struct StoreTests {
    @Test func anEventIsHandledOnceByItsID() throws {
        let store = try makeStore()
        guard case .handled(let alerts) = try store.handle(priceEvent(sequence: 1)) else {
            Issue.record("first time not handled")
            return
        }
        #expect(alerts.map(\.sequence) == [1])
        #expect(alerts.first?.eventID == "evt-1")
        #expect(try store.handle(priceEvent(sequence: 1)) == .duplicate)
        // Same id, even if re-sent with other content: still a duplicate.
        #expect(try store.handle(priceEvent(sequence: 1, price: "9.99")) == .duplicate)
        #expect(try store.alerts(after: 0, limit: 10).alerts.count == 1)
    }

    @Test func theWatermarkMovesOnlyOverSequencesWithoutAHole() throws {
        let store = try makeStore()
        _ = try store.handle(priceEvent(sequence: 1))
        #expect(try store.watermark(of: "shopping") == 1)
        _ = try store.handle(priceEvent(sequence: 3))
        #expect(try store.watermark(of: "shopping") == 1, "2 is missing")
        _ = try store.handle(priceEvent(sequence: 2))
        #expect(try store.watermark(of: "shopping") == 3, "the hole is filled: over 2 and 3")
        #expect(try store.knownSources() == ["shopping"])
    }

    @Test func theAlertAndTheHandledEventCommitTogether() throws {
        // A rule whose alert cannot be stored (its data does not encode) fails the whole event:
        // neither the alert nor "handled" is kept, so a later retry is not a duplicate.
        struct Broken: AlertRule {
            let eventType = "shopping.price_changed"
            func alerts(for event: CloudEvent) -> [AlertDraft] {
                [AlertDraft(kind: "ok", owner: "ann", text: "first", data: [:]),
                 AlertDraft(kind: "broken", owner: "ann", text: "second", data: .number(.nan))]
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("notifier-tx-\(UUID().uuidString.prefix(8))").path
        let broken = NotifierStore(database: try NotifierStore.openDatabase(directory: directory), rules: [Broken()])
        #expect(throws: (any Error).self) { try broken.handle(priceEvent(sequence: 1)) }
        #expect(try broken.hasHandled(eventID: "evt-1") == false)
        #expect(try broken.watermark(of: "shopping") == 0)
        #expect(try broken.alerts(after: 0, limit: 10).alerts.isEmpty)

        // The same database with working rules handles it, once.
        let working = NotifierStore(database: broken.database)
        guard case .handled(let alerts) = try working.handle(priceEvent(sequence: 1)) else {
            Issue.record("not handled")
            return
        }
        #expect(alerts.count == 1)
        #expect(try working.hasHandled(eventID: "evt-1"))
    }

    @Test func aRestartKeepsWhatWasHandled() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("notifier-re-\(UUID().uuidString.prefix(8))").path
        _ = try NotifierStore(directory: directory).handle(priceEvent(sequence: 1))
        let reopened = try NotifierStore(directory: directory)
        #expect(try reopened.handle(priceEvent(sequence: 1)) == .duplicate)
        #expect(try reopened.lastAlertSequence() == 1)
    }
}
