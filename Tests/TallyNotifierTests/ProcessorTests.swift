import Foundation
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

    @Test func aFailingSourceIsLeftAloneForItsBackoff() throws {
        let feed = FakeFeed()
        feed.failing = ["roster"]
        let (processor, _) = makeProcessor(store: try makeStore(), feed: feed, catalog: ["roster"])
        processor.checkAllSources()
        processor.checkAllSources()
        #expect(feed.calls.count == 1)
    }
}
