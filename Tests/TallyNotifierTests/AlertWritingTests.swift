import Foundation
import TallyClient
import TallyNotifier
import TallyProtocol
import Testing

/// `Alert.encoded()` writes the members itself; it must write what `TallyJSON` writes
/// from the `Encodable` form, which is what `alerts.list` answers with.
@Suite struct AlertWritingTests {
    @Test func anAlertIsWrittenAsJSONEncoderWritesItWhateverItsData() throws {
        let datas: [JSONValue] = [
            .null, [:], ["price": "1.29", "previous_price": "1.19", "item_name": "Milk \"2 %\"", "list_id": 7],
            ["é": [1, .number(2.5), .null, false], "A": "\u{1}\n", "": [:]],
        ]
        for data in datas {
            let alert = Alert(
                sequence: 12, kind: "price_higher", owner: "ann", text: "Milk costs 1.29, up from 1.19 — \"dearer\"",
                time: "2026-11-25T10:00:00.000Z", source: "tally/shopping", eventID: "e-1", data: data)
            #expect(alert.encoded() == (try TallyJSON.encode(alert)), "\(data)")
            #expect(try TallyJSON.decode(Alert.self, from: alert.encoded()) == alert)
        }
        let notFinite = Alert(sequence: 1, kind: "k", owner: "o", text: "t", time: "t", source: "s", eventID: "e", data: [.number(.infinity)])
        #expect(notFinite.encoded().isEmpty)
    }
}
