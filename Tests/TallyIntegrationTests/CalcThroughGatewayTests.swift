import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// Every calc command, end to end: client → gateway → `tally worker calc` process → back.
@Suite struct CalcThroughGatewayTests {
    @Test func tipMatchesTheWorkedExample() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let reply = try await stack.client().call(
                "calc.tip", ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"], id: "c-1")
            #expect(reply.id == "c-1")
            let result = try #require(reply.result, "\(reply)")
            #expect(result["tip"] == "15.12")
            #expect(result["total"] == "99.12")
            let people = try #require(result["per_person"]?.arrayValue)
            #expect(people.count == 3)
            for person in people {
                #expect(person == ["base": "28.00", "tip": "5.04", "total": "33.04"])
            }
        }
    }

    /// The gateway counts a service's errors by the outcome its worker reports with each reply
    /// (Tally's outcome frame), never by reading the reply.
    @Test func errorRepliesAreCountedByTheWorkersWord() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let client = try stack.client()
            #expect(try await client.call("calc.tip", ["amount": "84.00", "tip_percent": "18", "currency": "USD"]).isOK)
            #expect(try await client.call("calc.tip", ["amount": "lots", "tip_percent": "18", "currency": "USD"]).error?.code == .invalidArgument)
            let calc = try await stack.serviceStatus("calc")
            #expect(calc?["requests"] == 2, "\(String(describing: calc))")
            #expect(calc?["errors"] == 1, "\(String(describing: calc))")
        }
    }

    @Test func tipTableSplitAndAdjust() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let client = try stack.client()
            let table = try await client.call("calc.tip_table", ["amount": "84.00", "currency": "USD", "split": 3])
            let rows = try #require(table.result?["rows"]?.arrayValue, "\(table)")
            #expect(rows.count == 51)
            #expect(rows[18]["tip"] == "15.12")

            let split = try await client.call(
                "calc.split",
                ["currency": "EUR", "people": ["Ann", "Bo"], "subtotal": "40.00", "tax": "4.00", "mode": "items",
                 "items": [["name": "pasta", "price": "30.00", "people": [0]], ["name": "wine", "price": "10.00", "people": [0, 1]]],
                 "tip": ["percent": "10"]])
            let people = try #require(split.result?["people"]?.arrayValue, "\(split)")
            #expect(people.map { $0["subtotal"] } == ["35.00", "5.00"])
            #expect(split.result?["total"] == "48.00")

            let adjust = try await client.call(
                "calc.adjust", ["currency": "USD", "shares": ["10.00", "10.00", "10.00"], "person": 0, "amount": "16.00"])
            #expect(adjust.result?["shares"] == ["16.00", "7.00", "7.00"], "\(adjust)")
        }
    }

    @Test func jpyAndBhdUseTheirMinorUnits() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let client = try stack.client()
            let yen = try await client.call("calc.tip", ["amount": "1000", "tip_percent": "15", "currency": "JPY"])
            #expect(yen.result?["tip"] == "150")
            let dinar = try await client.call("calc.tip", ["amount": "10.000", "tip_percent": "12.5", "currency": "BHD"])
            #expect(dinar.result?["tip"] == "1.250")
            let auto = try await client.call("calc.tip", ["amount": "10", "tip_percent": "10", "currency": "auto"], locale: "en_GB")
            #expect(auto.result?["currency"] == "GBP")
        }
    }
}
