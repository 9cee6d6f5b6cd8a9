import Foundation
import Logging
import TallyNotifier
import TallyProtocol
import Testing

@Suite struct ProcessorTests {
    @Test func anEventInSequenceIsHandledForwardedAndAlerted() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        let (processor, published) = makeProcessor(store: store, feed: feed)
        processor.receive(priceEvent(sequence: 1))
        #expect(published.messages.map(\.topic) == ["event.shopping.price_changed", "alert.ann.price_higher"])
        #expect(feed.calls.isEmpty, "no hole, no catch-up")
    }

    @Test func theSameEventTwiceIsPublishedOnce() throws {
        let (processor, published) = makeProcessor(store: try makeStore(), feed: FakeFeed())
        processor.receive(priceEvent(sequence: 1))
        processor.receive(priceEvent(sequence: 1))
        #expect(published.alerts.count == 1)
        #expect(published.eventTopics.count == 1)
    }

    @Test func aHoleIsFilledFromTheFeedBeforeTheLaterEvent() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        feed.events["shopping"] = (1...3).map { priceEvent(sequence: $0) }
        let (processor, published) = makeProcessor(store: store, feed: feed)
        processor.receive(priceEvent(sequence: 1))
        processor.receive(priceEvent(sequence: 3))
        #expect(feed.calls.map(\.after) == [1], "asked after the watermark")
        #expect(published.alerts.map(\.eventID) == ["evt-1", "evt-2", "evt-3"], "in order, 3 once")
        #expect(try store.watermark(of: "shopping") == 3)
    }

    /// What one drain of the inlet finds is received together: events in sequence after the
    /// ones ahead of them in the batch need no catch-up; a hole in the middle is caught up on
    /// once, after what came before it was handled, and everything is alerted once, in order.
    @Test func aBatchWithAHoleInTheMiddleCatchesUpOnceAndHandlesEveryEventOnce() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        feed.events["shopping"] = (1...6).map { priceEvent(sequence: $0) }
        let (processor, published) = makeProcessor(store: store, feed: feed)
        processor.receive([1, 2, 3, 5, 6, 3].map { priceEvent(sequence: $0) })
        #expect(feed.calls.map(\.after) == [3], "one catch-up, after what the batch had handled")
        #expect(published.alerts.map(\.eventID) == ["evt-1", "evt-2", "evt-3", "evt-4", "evt-5", "evt-6"])
        #expect(try store.watermark(of: "shopping") == 6)
    }

    @Test func aFailedCatchUpStillHandlesTheLiveEventAndTheCheckLaterFillsTheHole() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        feed.failing = ["shopping"]
        let (processor, published) = makeProcessor(store: store, feed: feed)
        processor.receive(priceEvent(sequence: 2))
        #expect(published.alerts.map(\.eventID) == ["evt-2"])
        #expect(try store.watermark(of: "shopping") == 0)
        feed.failing = []
        feed.events["shopping"] = [priceEvent(sequence: 1), priceEvent(sequence: 2)]
        #expect(processor.catchUp("shopping", force: true))
        #expect(published.alerts.map(\.eventID) == ["evt-2", "evt-1"])
        #expect(try store.watermark(of: "shopping") == 2)
    }

    /// `alerts.status` during a catch-up: the feed's last sequence is recorded before the first
    /// page is handled, so the lag is there at once and goes down event by event.
    @Test func aCatchUpShowsItsLagGoingDownAsItHandles() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        feed.events["shopping"] = (1...3).map { priceEvent(sequence: $0) }
        let published = Published()
        let processor = EventProcessor(
            store: store, feed: feed, catalogSources: ["shopping"], pageSize: 1, logger: Logger(label: "test")
        ) { topic, _ in
            guard topic.hasPrefix("event.") else { return }
            let lag = try? store.status().sources.first { $0.service == "shopping" }?.lagEvents
            published.messages.append(("lag \(lag.map(String.init) ?? "none")", Data()))
        }
        processor.checkAllSources()
        #expect(published.messages.map(\.topic) == ["lag 2", "lag 1", "lag 0"])
        #expect(try store.status() == NotifierStatus(
            sources: [NotifierStatus.Source(service: "shopping", handledThrough: 3, newestKnown: 3)], lastAlertSequence: 3))
    }

    /// A live event past a hole the feed cannot fill yet: known, not handled in order.
    @Test func aHoleTheFeedCannotFillShowsAsLag() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        feed.failing = ["shopping"]
        let (processor, _) = makeProcessor(store: store, feed: feed)
        processor.receive(priceEvent(sequence: 3))
        let source = try #require(try store.status().sources.first)
        #expect(source == NotifierStatus.Source(service: "shopping", handledThrough: 0, newestKnown: 3))
        #expect(source.lagEvents == 3)
    }

    @Test func thePeriodicCheckAsksCatalogAndSeenSourcesAndPagesThrough() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        feed.events["shopping"] = (1...5).map { priceEvent(sequence: $0) }
        let (processor, published) = makeProcessor(store: store, feed: feed, catalog: ["shopping", "roster"], pageSize: 2)
        processor.checkAllSources()
        #expect(published.alerts.count == 5)
        #expect(feed.calls.filter { $0.service == "shopping" }.map(\.after) == [0, 2, 4])
        #expect(feed.calls.contains { $0.service == "roster" })
        processor.checkAllSources()
        #expect(published.alerts.count == 5, "nothing new, nothing again")
    }

    /// The processor keeps each source's watermark in memory between drains; an event it could
    /// not store must not count there as handled, or the hole it leaves would go unnoticed.
    @Test func anEventThatCouldNotBeStoredLeavesAHoleTheNextEventCatchesUpOn() throws {
        let store = try makeStore(rules: [BrokenForBo()])
        let feed = FakeFeed()
        let (processor, _) = makeProcessor(store: store, feed: feed)
        processor.receive([priceEvent(sequence: 1), priceEvent(sequence: 2, owner: "bo")])
        #expect(feed.calls.isEmpty)
        processor.receive(priceEvent(sequence: 3))
        #expect(feed.calls.map(\.after) == [1], "2 was not stored: a hole before 3")
        #expect(try store.watermark(of: "shopping") == 1)
    }

    /// Another notifier on the same database may have moved the watermark past what this one
    /// knows: a hole is asked of the database before the feed.
    @Test func aHoleAnotherNotifierFilledIsNotCaughtUpOn() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        let (first, _) = makeProcessor(store: store, feed: feed)
        let (second, _) = makeProcessor(store: try NotifierStore(engine: store.engine), feed: feed)
        first.receive(priceEvent(sequence: 1))
        second.receive([2, 3].map { priceEvent(sequence: $0) })
        first.receive(priceEvent(sequence: 4))
        #expect(feed.calls.isEmpty, "the database had 2 and 3")
        #expect(try store.watermark(of: "shopping") == 4)
    }

    @Test func aFailingSourceIsLeftAloneForItsBackoff() throws {
        let feed = FakeFeed()
        feed.failing = ["roster"]
        let (processor, _) = makeProcessor(store: try makeStore(), feed: feed, catalog: ["roster"])
        processor.checkAllSources()
        processor.checkAllSources()
        #expect(feed.calls.count == 1)
    }

    /// Two worker processes' events pass each other on the way: a hole whose event arrives within
    /// the reorder window is never asked about, and the events are handled in order.
    @Test func aHoleFilledWithinTheReorderWindowMakesNoCatchUpCall() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        feed.events["shopping"] = (1...4).map { priceEvent(sequence: $0) }
        let (processor, published) = makeProcessor(store: store, feed: feed, reorderWindow: .seconds(10))
        let start = ContinuousClock.now
        processor.receive(priceEvent(sequence: 1))
        processor.receive(priceEvent(sequence: 3))
        #expect(try store.watermark(of: "shopping") == 1, "3 waits for 2")
        processor.receive([priceEvent(sequence: 4), priceEvent(sequence: 2)])
        #expect(try store.watermark(of: "shopping") == 4, "2 filled the hole; 3 and 4 followed it")
        #expect(processor.nextHoleDue == nil, "no hole is waiting")
        processor.catchUpOnOverdueHoles(at: start + .seconds(60))
        #expect(feed.calls.isEmpty)
        #expect(published.alerts.map(\.eventID) == ["evt-1", "evt-2", "evt-3", "evt-4"])
    }

    /// A hole still open when its window ends is caught up on, once; the events held past it are
    /// handled in order, and later checks ask nothing more.
    @Test func aHoleStillOpenAfterTheReorderWindowMakesOneCatchUpCall() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        feed.events["shopping"] = (1...6).map { priceEvent(sequence: $0) }
        let (processor, published) = makeProcessor(store: store, feed: feed, reorderWindow: .seconds(10))
        let start = ContinuousClock.now
        processor.receive([priceEvent(sequence: 1), priceEvent(sequence: 3)])
        processor.receive(priceEvent(sequence: 5))
        processor.catchUpOnOverdueHoles(at: start)
        #expect(feed.calls.isEmpty, "within the window")
        #expect(published.alerts.map(\.eventID) == ["evt-1"], "3 and 5 wait")
        let due = try #require(processor.nextHoleDue)
        #expect(due > start + .seconds(9))
        processor.catchUpOnOverdueHoles(at: due)
        #expect(feed.calls.map(\.after) == [1], "one call, after the watermark")
        #expect(try store.watermark(of: "shopping") == 6)
        processor.catchUpOnOverdueHoles(at: due + .seconds(60))
        #expect(feed.calls.count == 1)
        #expect(published.alerts.map(\.eventID) == (1...6).map { "evt-\($0)" })
    }

    /// The restore: the notifier handled shopping through 5 in one epoch; its database is
    /// restored from a backup taken at 3 (a new epoch beginning after 3), and new events 4' and 5'
    /// reuse numbers handled before. A live event of the new epoch makes the notifier take up that
    /// history and catch up from 3: each new event alerted once, the old ones not again.
    @Test func anEventOfANewEpochCatchesUpFromWhereThatHistoryBegan() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        let (processor, published) = makeProcessor(store: store, feed: feed, reorderWindow: .seconds(10))
        processor.receive((1...5).map { priceEvent(sequence: $0, epoch: "first") })
        #expect(try store.watermark(of: "shopping") == 5)
        feed.epochs["shopping"] = ("restored", 3)
        feed.events["shopping"] = (1...3).map { priceEvent(sequence: $0, epoch: "first") }
            + (4...6).map { priceEvent(sequence: $0, id: "new-\($0)", epoch: "restored") }
        processor.receive(priceEvent(sequence: 6, id: "new-6", epoch: "restored"))
        #expect(feed.calls.map(\.after) == [5, 3], "asked, then asked again from where the new history began")
        #expect(published.alerts.map(\.eventID) == (1...5).map { "evt-\($0)" } + ["new-4", "new-5", "new-6"])
        #expect(try store.watermark(of: "shopping") == 6)
        #expect(try store.epoch(of: "shopping") == "restored")
        #expect(try store.status().sources == [NotifierStatus.Source(service: "shopping", handledThrough: 6, newestKnown: 6)])
        processor.receive(priceEvent(sequence: 5, id: "evt-5", epoch: "first"))
        processor.checkAllSources()
        #expect(published.alerts.count == 8, "an old history's event is not handled again, nor anything else")
    }

    /// A notifier that was down through the restore finds the new epoch in its periodic check.
    @Test func thePeriodicCheckTakesUpANewEpoch() throws {
        let store = try makeStore()
        let feed = FakeFeed()
        let (processor, published) = makeProcessor(store: store, feed: feed)
        processor.receive((1...4).map { priceEvent(sequence: $0, epoch: "first") })
        feed.epochs["shopping"] = ("restored", 2)
        feed.events["shopping"] = (1...2).map { priceEvent(sequence: $0, epoch: "first") }
            + [priceEvent(sequence: 3, id: "new-3", epoch: "restored")]
        processor.checkAllSources()
        #expect(published.alerts.map(\.eventID) == (1...4).map { "evt-\($0)" } + ["new-3"])
        #expect(try store.status().sources == [NotifierStatus.Source(service: "shopping", handledThrough: 3, newestKnown: 3)])
    }
}
