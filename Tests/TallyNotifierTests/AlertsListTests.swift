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

    private static let admin = Caller(userID: "1", username: "olga", roles: ["admin"])
    private static let ann = Caller(userID: "ann", username: "ann")
    private static let bo = Caller(userID: "bo", username: "bo")

    private func sequences(_ page: JSONValue) -> [Int64]? { page["alerts"]?.arrayValue?.compactMap { $0["sequence"]?.intValue } }

    @Test func aCallerListsOnlyTheirOwnAlerts() async throws {
        let service = try filledService()
        let ann = try service.call("alerts.list", [:], caller: Self.ann)
        #expect(sequences(ann) == [1, 2, 3])
        #expect(ann["alerts"]?.arrayValue?.allSatisfy { $0["owner"] == "ann" } == true)
        // last_sequence is the whole store's: ann has every alert of hers up to 6.
        #expect(ann["last_sequence"] == 6)
        #expect(sequences(try service.call("alerts.list", ["after": 2], caller: Self.bo)) == [4, 5, 6])
        #expect(sequences(try service.call("alerts.list", [:], caller: Caller(userID: "cleo", username: "cleo"))) == [])
    }

    @Test func anAdminListsEveryonesWithAllOwnersAndNobodyElseMay() async throws {
        let service = try filledService()
        #expect(sequences(try service.call("alerts.list", ["all_owners": true], caller: Self.admin)) == [1, 2, 3, 4, 5, 6])
        #expect(sequences(try service.call("alerts.list", ["all_owners": false], caller: Self.admin)) == [], "olga has none of her own")
        let refused = service.error("alerts.list", ["all_owners": true], caller: Self.ann)
        #expect(refused?.code == .permissionDenied)
        #expect(refused?.field == "args.all_owners")
        #expect(refused?.message.hasPrefix("all_owners needs the role 'admin'; ann has no roles (leave all_owners out;") == true)
        #expect(sequences(try service.call("alerts.list", ["all_owners": false], caller: Self.ann)) == [1, 2, 3])
        // Declared with the command, so the middleware refuses it before the handler runs.
        #expect(AlertsService.table.entry("alerts.list")?.description.flagRoles == ["all_owners": "admin"])
        #expect(service.error("alerts.list", [:])?.code == .unauthenticated, "no caller")
        // The owner is the caller, never an argument.
        let named = service.error("alerts.list", ["owner": "bo"], caller: Self.ann)
        #expect(named?.code == .invalidArgument)
        #expect(named?.field == "args.owner")
        #expect(named?.message.hasPrefix("owner is no longer an argument") == true)
    }

    @Test func pagesByAfterAndSaysWhetherMoreFollow() async throws {
        let service = try filledService()
        let first = try service.call("alerts.list", ["limit": 4, "all_owners": true], caller: Self.admin)
        #expect(sequences(first) == [1, 2, 3, 4])
        #expect(first["more"] == true)
        #expect(first["last_sequence"] == 6)
        let second = try service.call("alerts.list", ["after": 4, "limit": 4, "all_owners": true], caller: Self.admin)
        #expect(sequences(second) == [5, 6])
        #expect(second["more"] == false)
        let none = try service.call("alerts.list", ["after": 6, "all_owners": true], caller: Self.admin)
        #expect(none["alerts"] == [])
        #expect(none["last_sequence"] == 6)
        let annFirst = try service.call("alerts.list", ["limit": 2], caller: Self.ann)
        #expect(sequences(annFirst) == [1, 2])
        #expect(annFirst["more"] == true)
    }

    @Test func filtersByKind() async throws {
        let service = try filledService()
        let higher = try service.call("alerts.list", ["kind": "price_higher", "all_owners": true], caller: Self.admin)
        #expect(sequences(higher) == [1, 3, 5])
        let bo = try service.call("alerts.list", ["kind": "price_lower"], caller: Self.bo)
        #expect(sequences(bo) == [4, 6])
        let alert = try service.call("alerts.list", ["limit": 1], caller: Self.ann)["alerts"]?[0]
        #expect(alert?["text"] == "Milk cost more than last time: 1.29 EUR (was 1.19 EUR)")
        #expect(alert?["event_id"] == "evt-1")
        #expect(alert?["source"] == "tally/shopping")
        #expect(alert?["data"]?["item_name"] == "Milk")
    }

    @Test func refusesBadArguments() async throws {
        let service = try filledService()
        for args: JSONValue in [["after": -1], ["limit": 0], ["limit": 501], ["kind": ""], ["colour": "red"], ["after": "3"], ["all_owners": "yes"]] {
            #expect(service.error("alerts.list", args, caller: Self.ann)?.code == .invalidArgument, "\(args)")
        }
    }
}
