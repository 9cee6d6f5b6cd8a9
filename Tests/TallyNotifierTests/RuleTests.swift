import TallyNotifier
import TallyProtocol
import Testing

@Suite struct RuleTests {
    @Test func aHigherPriceIsAPriceHigherAlert() {
        let alerts = AlertRules.alerts(for: priceEvent(sequence: 1))
        #expect(alerts == [AlertDraft(
            kind: "price_higher", owner: "ann", text: "Milk cost more than last time: 1.29 EUR (was 1.19 EUR)",
            data: priceEvent(sequence: 1).data)])
    }

    @Test func aLowerPriceIsAPriceLowerAlert() {
        let alerts = AlertRules.alerts(for: priceEvent(sequence: 1, direction: "lower", price: "0.99"))
        #expect(alerts.map(\.kind) == ["price_lower"])
        #expect(alerts.first?.text == "Milk cost less than last time: 0.99 EUR (was 1.19 EUR)")
    }

    @Test func anUnchangedOrIncompletePriceGivesNoAlert() {
        #expect(AlertRules.alerts(for: priceEvent(sequence: 1, direction: "same")).isEmpty)
        var missing = priceEvent(sequence: 1)
        missing.data = ["direction": "higher", "owner": "ann"]
        #expect(AlertRules.alerts(for: missing).isEmpty)
    }

    @Test func theOwnerFallsBackToTheSubject() {
        var event = priceEvent(sequence: 1)
        if case .object(var data) = event.data {
            data["owner"] = nil
            event.data = .object(data)
        }
        event.subject = "bo/item-9"
        #expect(AlertRules.alerts(for: event).first?.owner == "bo")
    }

    @Test func itemsCarriedOverNamesTheItemsAndTheList() {
        let event = CloudEvent(
            id: "e", source: "tally/shopping", type: "shopping.items_carried_over", time: "t", sequence: 4,
            data: ["owner": "ann", "to_list_name": "Weekend", "items": [["name": "Milk"], ["name": "Eggs"]]])
        let alerts = AlertRules.alerts(for: event)
        #expect(alerts.map(\.kind) == ["items_carried_over"])
        #expect(alerts.first?.text == "2 items carried over into Weekend: Milk, Eggs")
        var none = event
        none.data = ["owner": "ann", "items": []]
        #expect(AlertRules.alerts(for: none).isEmpty)
    }

    @Test func otherEventsGiveNoAlert() {
        var event = priceEvent(sequence: 1)
        event.type = "shopping.item_added"
        #expect(AlertRules.alerts(for: event).isEmpty)
    }

    @Test func theServiceOfAnEventComesFromItsSource() {
        #expect(priceEvent(sequence: 1).service == "shopping")
        let bare = CloudEvent(id: "x", source: "urn:other", type: "roster.shift_approved", time: "t", sequence: 1, data: [:])
        #expect(bare.service == "roster")
    }
}
