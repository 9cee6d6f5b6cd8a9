import Foundation
import TallyNotifier
import TallyProtocol
import TallyTesting
import Testing

@Suite struct AlertsListTests {
    /// Six alerts: ann and bo alternate, prices alternately higher and lower.
    private func filledService() throws -> ServiceHarness {
        let store = try makeStore()
        for sequence in Int64(1)...6 {
            _ = try store.handle(priceEvent(
                sequence: sequence, direction: sequence % 2 == 1 ? "higher" : "lower", owner: sequence <= 3 ? "ann" : "bo"))
        }
        return ServiceHarness(AlertsService(store: store))
    }

    @Test func pagesByAfterAndSaysWhetherMoreFollow() async throws {
        let service = try filledService()
        let first = try service.call("alerts.list", ["limit": 4])
        #expect(first["alerts"]?.arrayValue?.compactMap { $0["sequence"]?.intValue } == [1, 2, 3, 4])
        #expect(first["more"] == true)
        #expect(first["last_sequence"] == 6)
        let second = try service.call("alerts.list", ["after": 4, "limit": 4])
        #expect(second["alerts"]?.arrayValue?.compactMap { $0["sequence"]?.intValue } == [5, 6])
        #expect(second["more"] == false)
        let none = try service.call("alerts.list", ["after": 6])
        #expect(none["alerts"] == [])
        #expect(none["last_sequence"] == 6)
    }

    @Test func filtersByKindAndOwner() async throws {
        let service = try filledService()
        let higher = try service.call("alerts.list", ["kind": "price_higher"])
        #expect(higher["alerts"]?.arrayValue?.compactMap { $0["sequence"]?.intValue } == [1, 3, 5])
        let bo = try service.call("alerts.list", ["owner": "bo", "kind": "price_lower"])
        #expect(bo["alerts"]?.arrayValue?.compactMap { $0["sequence"]?.intValue } == [4, 6])
        let alert = try service.call("alerts.list", ["limit": 1])["alerts"]?[0]
        #expect(alert?["text"] == "Milk cost more than last time: 1.29 EUR (was 1.19 EUR)")
        #expect(alert?["event_id"] == "evt-1")
        #expect(alert?["source"] == "tally/shopping")
        #expect(alert?["data"]?["item_name"] == "Milk")
    }

    @Test func refusesBadArguments() async throws {
        let service = try filledService()
        for args: JSONValue in [["after": -1], ["limit": 0], ["limit": 501], ["kind": ""], ["colour": "red"], ["after": "3"]] {
            #expect(service.error("alerts.list", args)?.code == .invalidArgument, "\(args)")
        }
    }
}
