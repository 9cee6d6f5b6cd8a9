import TallyClient
import TallyProtocol
import Testing

@Suite struct WatchSeamTests {
    private func alert(_ sequence: Int64, kind: String = "price_higher", owner: String = "ann") -> Alert {
        Alert(sequence: sequence, kind: kind, owner: owner, text: "t\(sequence)", time: "t", source: "tally/shopping",
              eventID: "e\(sequence)", data: [:])
    }

    @Test func backlogThenLiveWithNoDuplicateAtTheSeam() {
        var seam = WatchSeam(since: 0)
        // Subscribed first: 3 and 4 arrive live while the backlog (1...3) is fetched.
        let shown = seam.apply(AlertPage(alerts: [alert(1), alert(2), alert(3)], lastSequence: 3, more: false))
        #expect(shown.map(\.sequence) == [1, 2, 3])
        #expect(seam.live(alert(3)) == .skip)
        #expect(seam.live(alert(4)) == .show(alert(4)))
    }

    @Test func aGapAsksForAFetch() {
        var seam = WatchSeam(since: 2)
        #expect(seam.live(alert(3)) == .show(alert(3)))
        #expect(seam.live(alert(5)) == .fetch)
        let shown = seam.apply(AlertPage(alerts: [alert(4), alert(5)], lastSequence: 5, more: false))
        #expect(shown.map(\.sequence) == [4, 5])
        #expect(seam.live(alert(5)) == .skip)
        #expect(!seam.needsFetch(lastAlertSequence: 5))
        #expect(seam.needsFetch(lastAlertSequence: 6))
    }

    @Test func withoutSinceOnlyNewAlertsShow() {
        var seam = WatchSeam(since: nil)
        #expect(seam.apply(AlertPage(alerts: [], lastSequence: 7, more: false), baselineOnly: true).isEmpty)
        #expect(seam.covered == 7)
        #expect(seam.live(alert(8)) == .show(alert(8)))
    }

    @Test func theTopicFiltersWhatIsShownButNotWhatIsCovered() {
        var seam = WatchSeam(since: 0, topicPrefix: "alert.price_lower")
        let shown = seam.apply(AlertPage(alerts: [alert(1), alert(2, kind: "price_lower")], lastSequence: 2, more: false))
        #expect(shown.map(\.sequence) == [2])
        #expect(seam.live(alert(3)) == .skip)
        #expect(seam.covered == 3)
    }

    /// A person's watch: their alerts have holes where other people's are (2 and 3 are bo's). A
    /// jump is a fetch, whose page answers for every sequence up to its last_sequence; another
    /// owner's alert that reaches it anyway is not shown.
    @Test func anOwnersWatchFetchesOverOtherPeoplesAlertsAndShowsOnlyItsOwn() {
        var seam = WatchSeam(since: 0, owner: "ann")
        #expect(seam.apply(AlertPage(alerts: [alert(1)], lastSequence: 3, more: false)).map(\.sequence) == [1])
        #expect(seam.covered == 3)
        #expect(seam.live(alert(4)) == .show(alert(4)))
        #expect(seam.live(alert(7)) == .fetch, "5 and 6 may be ann's")
        let shown = seam.apply(AlertPage(alerts: [alert(7)], lastSequence: 8, more: false))
        #expect(shown.map(\.sequence) == [7])
        #expect(seam.covered == 8)
        #expect(seam.live(alert(9, owner: "bo")) == .skip)
        #expect(seam.covered == 9)
        #expect(seam.apply(AlertPage(alerts: [alert(10, owner: "bo")], lastSequence: 10, more: false)).isEmpty)
    }

    @Test func pagesMoveCoveredToTheirLastAlert() {
        var seam = WatchSeam(since: 0)
        _ = seam.apply(AlertPage(alerts: [alert(1), alert(2)], lastSequence: 9, more: true))
        #expect(seam.covered == 2)
    }
}
