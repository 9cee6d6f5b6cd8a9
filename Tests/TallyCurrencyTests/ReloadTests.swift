import Foundation
import TallyMoney
import TallyProtocol
@testable import TallyCurrency
import TallyTesting
import Testing

@Suite struct ReloadTests {
    /// Set A is the embedded data; set B has 30 fewer currencies and every English name marked.
    /// Loads alternate between them in small, slow chunks while another connection (as another
    /// worker process would) keeps searching: every answer is all A or all B.
    @Test func aReaderDuringReloadsSeesTheOldSetOrTheNewOneNeverAMix() async throws {
        let directory = try temporaryDataDirectory()
        let setA = CurrencyData.embedded
        var setB = renamedEmbeddedData(version: "B", suffix: " ✱")
        setB.currencies.removeLast(30)
        let countA = setA.currencies.count
        let countB = setB.currencies.count
        #expect(countA != countB)

        var writer = CurrencyLoader(store: try openStore(directory))
        _ = try writer.load(setA, source: .embedded, policy: .replace)
        writer.chunkSize = 10
        writer.beforeChunk = { _ in Thread.sleep(forTimeInterval: 0.003) }

        let reader = try openStore(directory)
        let stop = Observations<Bool>()
        let seen = Observations<String>()
        let readerThread = Thread {
            while stop.items.isEmpty {
                do {
                    let result = try run(reader, "currency.search", ["limit": 100, "include_retired": true])
                    let names = (result["currencies"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
                    let marked = names.filter { $0.hasSuffix(" ✱") }.count
                    switch (result["total"]?.intValue, marked) {
                    case (Int64(countA), 0): seen.append("A")
                    case (Int64(countB), names.count): seen.append("B")
                    default: seen.append("mixed: total \(String(describing: result["total"])), \(marked) of \(names.count) marked")
                    }
                    if try reader.status().reload != nil { seen.append("reloading") }
                } catch {
                    seen.append("error: \(error)")
                }
            }
        }
        readerThread.start()
        for data in [setB, setA, setB, setA, setB] {
            let outcome = try writer.load(data, source: .file, policy: .replace)
            #expect(outcome.loaded)
            #expect(outcome.version == data.version)
        }
        stop.append(true)
        try await waitUntil("the reader stopped") { readerThread.isFinished }

        let observations = seen.items
        let odd = observations.filter { $0 != "A" && $0 != "B" && $0 != "reloading" }
        #expect(odd.isEmpty, "\(odd.prefix(5))")
        #expect(observations.contains("A"))
        #expect(observations.contains("B"))
        #expect(observations.contains("reloading"), "the reader ran while loads were in progress")
        // The last load won, and only its rows are left.
        #expect(try reader.status().dataVersion == "B")
        #expect(try reader.status().count == countB)
    }

    @Test func aRunningReaderSeesTheNewSetOnItsNextQuery() throws {
        let directory = try temporaryDataDirectory()
        let worker = try openStore(directory)
        _ = try CurrencyLoader(store: worker).load(.embedded, source: .embedded, policy: .replace)
        #expect(try run(worker, "currency.get", ["code": "CHF"])["name"] == "Swiss Franc")

        var renamed = CurrencyData.embedded
        renamed.version = "renamed"
        let index = try #require(renamed.currencies.firstIndex { $0.code == "CHF" })
        renamed.currencies[index].names["en"] = "Helvetic Franc"
        renamed.currencies[index].isoName = "Helvetic Franc"
        let operatorsStore = try openStore(directory)
        _ = try CurrencyLoader(store: operatorsStore).load(renamed, source: .file, policy: .replace)

        #expect(try run(worker, "currency.get", ["code": "CHF"])["name"] == "Helvetic Franc")
        #expect(codes(try run(worker, "currency.search", ["query": "helvetic"])) == ["CHF"])
        #expect(codes(try run(worker, "currency.search", ["query": "swiss"])).isEmpty)
        #expect(try worker.status().dataVersion == "renamed")
        #expect(try worker.status().source == .file)
    }

    /// What `tally currency load` does with a file that does not pass: it is refused before the
    /// database is touched, with a message naming the entry and field.
    @Test func aBadFileIsRefusedWithWhatIsWrongAndChangesNothing() throws {
        let store = try makeStore()
        let before = try store.status()
        let original = try JSONSerialization.jsonObject(with: TallyJSON.encode(CurrencyData.embedded)) as! [String: Any]

        func refusal(_ change: (inout [String: Any]) -> Void) -> String? {
            var json = original
            change(&json)
            do {
                _ = try CurrencyData.decode(try JSONSerialization.data(withJSONObject: json))
                return nil
            } catch let error as CurrencyDataError {
                return error.message
            } catch {
                return "not a CurrencyDataError: \(error)"
            }
        }
        func changeCurrency(_ json: inout [String: Any], _ position: Int, _ key: String, _ value: Any) {
            var currencies = json["currencies"] as! [[String: Any]]
            currencies[position][key] = value
            json["currencies"] = currencies
        }
        let code = CurrencyData.embedded.currencies[3].code
        #expect(refusal { changeCurrency(&$0, 3, "minor_units", "two") } == "currency data is malformed: currencies[3].minor_units: expected Int")
        #expect(refusal { changeCurrency(&$0, 3, "code", "EURO") } == "currencies[3]: code \"EURO\" is not three upper-case letters A to Z")
        #expect(refusal { changeCurrency(&$0, 3, "countries", ["QQ"]) } == "currencies[3] (\(code)): country QQ is not in territories")
        #expect(refusal { $0["format"] = 2 } == "currency data format 2 is not supported; this Tally reads format 1")
        #expect(try store.status() == before)
    }
}
