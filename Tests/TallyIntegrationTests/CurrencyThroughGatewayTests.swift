import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// The currency service end to end: client → gateway → `tally worker currency` processes sharing
/// one `currency.sqlite` → back; and `tally currency load` changing the data under running workers.
@Suite struct CurrencyThroughGatewayTests {
    @Test func searchGetAndDefaultThroughTheGateway() async throws {
        try await TallyStack.with(workers: ["currency": 1]) { stack in
            let client = try stack.client()
            try await waitForCurrencyData(stack)

            let yen = try await client.call("currency.search", ["query": "Yen"], id: "s-1")
            #expect(yen.id == "s-1")
            #expect(codes(yen).first == "JPY", "\(yen)")
            let euro = try await client.call("currency.search", ["query": "ÉURO", "limit": 1])
            #expect(codes(euro) == ["EUR"])
            #expect(euro.result?["next_cursor"]?.stringValue != nil, "other currencies have euro in their names")

            let swiss = try await client.call("currency.search", ["query": "スイス"], locale: "ja_JP")
            #expect(swiss.result?["currencies"]?[0]?["name"] == "スイス フラン", "\(swiss)")

            let mark = try await client.call("currency.get", ["code": "dem"])
            #expect(mark.result?["retired"] == true, "\(mark)")
            // The summary's members beside the detail's, and what a retired currency lacks as null.
            #expect(mark.result?["code"] == "DEM" && mark.result?["narrow_symbol"] == "DEM", "\(mark)")
            #expect(mark.result?["numeric"] == .null && mark.result?["iso_name"] == .null && mark.result?["iso_minor_units"] == .null, "\(mark)")
            let unknown = try await client.call("currency.get", ["code": "XYZ"])
            #expect(unknown.error?.code == .notFound)

            for (locale, code) in [("ja_JP", "JPY"), ("en_GB", "GBP"), ("de_CH", "CHF"), ("zh_CN", "CNY"), ("en_US", "USD")] {
                let reply = try await client.call("currency.default_for_locale", locale: locale)
                #expect(reply.result?["currency"]?["code"] == .string(code), "\(locale): \(reply)")
            }
            let noRegion = try await client.call("currency.default_for_locale", ["locale": "en"])
            #expect(noRegion.error?.code == .notFound)
        }
    }

    @Test func searchesAreUnavailableWhileTheWorkerLoadsThenAnswered() async throws {
        try await TallyStack.with() { stack in
            // The load stops after its first chunk until the gate file exists: the search below lands
            // while loading however long a busy machine leaves this test unscheduled.
            let gate = stack.directory.appendingPathComponent("currency-load-gate").path
            try stack.startWorker("currency", extraArguments: ["--currency-load-gate", gate])
            try await stack.waitForWorkers("currency", count: 1)
            let client = try stack.client(timeout: .seconds(30))
            try await stack.waitUntil("the worker reports loading progress") {
                let status = try? await client.call("currency.status")
                return status?.result?["state"] == "loading" && (status?.result?["loaded"]?.intValue ?? 0) > 0
            }
            let early = try await client.call("currency.search", ["query": "yen"])
            #expect(early.error?.code == .unavailable, "\(early)")
            #expect(early.error?.message.hasPrefix("the currency data is still loading (") == true, "\(early)")

            #expect(FileManager.default.createFile(atPath: gate, contents: nil), "the loader's gate file could not be made")
            try await waitForCurrencyData(stack)
            let later = try await client.call("currency.search", ["query": "yen"])
            #expect(codes(later).first == "JPY", "\(later)")
        }
    }

    @Test func twoWorkerProcessesShareOneFileAndOnlyOneLoads() async throws {
        try await TallyStack.with() { stack in
            let first = try stack.startWorker("currency", extraArguments: ["--currency-load-delay-ms", "150"])
            let second = try stack.startWorker("currency", extraArguments: ["--currency-load-delay-ms", "150"])
            try await stack.waitForWorkers("currency", count: 2)
            try await waitForCurrencyData(stack)
            // Each worker logs what it did just after doing it: status can say ready before the
            // lines reach the processes' logs.
            try await stack.waitUntil("one worker logs the load and the other its wait") {
                let logs = first.log + second.log
                return logs.contains("currency data loaded")
                    && (logs.contains("waiting for another process to load currency data") || logs.contains("currency data is ready"))
            }

            let logs = [first.log, second.log]
            #expect(logs.filter { $0.contains("loading currency data") }.count == 1, "\(logs)")
            #expect(logs.filter { $0.contains("currency data loaded") }.count == 1, "\(logs)")
            #expect(logs.filter { $0.contains("waiting for another process to load currency data") || $0.contains("currency data is ready") }.count == 1)
            // Both answer from the one file: ask often enough that both workers serve requests.
            let client = try stack.client()
            for _ in 0..<6 {
                async let a = client.call("currency.search", ["query": "kr"])
                async let b = client.call("currency.search", ["query": "kr"])
                for reply in try await [a, b] {
                    #expect(Array(codes(reply).prefix(4)) == ["DKK", "ISK", "NOK", "SEK"], "\(reply)")
                }
            }
        }
    }

    @Test func aWorkerKilledWhileLoadingIsTakenOverByTheNext() async throws {
        try await TallyStack.with() { stack in
            // A load held after its first chunk by a gate that never opens: it has begun, and is
            // surely still loading when killed. (A delay before each chunk made the first chunk
            // itself late, past the wait below on a busy machine.)
            let neverOpened = stack.directory.appendingPathComponent("never-opened").path
            let doomed = try stack.startWorker("currency", extraArguments: ["--currency-load-gate", neverOpened])
            try await stack.waitForWorkers("currency", count: 1)
            let client = try stack.client()
            try await stack.waitUntil("the first worker has begun loading") {
                (try? await client.call("currency.status"))?.result?["loaded"]?.intValue ?? 0 > 0
            }
            await doomed.kill9()
            let successor = try stack.startWorker("currency")
            try await waitForCurrencyData(stack)
            #expect(successor.log.contains("taking over a currency load that went stale"), "\(successor.log)")
            let reply = try await client.call("currency.get", ["code": "CHF"])
            #expect(reply.result?["name"] == "Swiss Franc", "\(reply)")
        }
    }

    @Test func tallyCurrencyLoadChangesWhatARunningWorkerAnswers() async throws {
        try await TallyStack.with(workers: ["currency": 1]) { stack in
            let client = try stack.client()
            try await waitForCurrencyData(stack)
            #expect(try await client.call("currency.get", ["code": "CHF"]).result?["name"] == "Swiss Franc")
            let dataDir = stack.directory.appendingPathComponent("data").path

            // A file with one currency renamed.
            let renamed = try writeCurrencyFile(in: stack, named: "renamed.json") { json in
                json["version"] = "renamed CHF"
                var currencies = json["currencies"] as! [[String: Any]]
                let index = currencies.firstIndex { $0["code"] as? String == "CHF" }!
                currencies[index]["names"] = ["en": "Helvetic Franc", "ja": "ヘルヴェティア フラン", "zh": "瑞士法郎"]
                currencies[index]["iso_name"] = "Helvetic Franc"
                json["currencies"] = currencies
            }
            let load = try await tally(["currency", "load", renamed, "--data-dir", dataDir], in: stack)
            #expect(load.status == 0, "\(load.log)")
            #expect(load.log.contains("loaded 280 currencies (data version renamed CHF)"), "\(load.log)")

            let get = try await client.call("currency.get", ["code": "CHF"])
            #expect(get.result?["name"] == "Helvetic Franc", "\(get)")
            let search = try await client.call("currency.search", ["query": "helvetic"])
            #expect(codes(search) == ["CHF"], "\(search)")
            let status = try await client.call("currency.status")
            #expect(status.result?["data_version"] == "renamed CHF")
            #expect(status.result?["source"] == "file")

            // A bad file says what is wrong and changes nothing.
            let broken = try writeCurrencyFile(in: stack, named: "broken.json") { json in
                var currencies = json["currencies"] as! [[String: Any]]
                currencies[3]["minor_units"] = "two"
                json["currencies"] = currencies
            }
            let refused = try await tally(["currency", "load", broken, "--data-dir", dataDir], in: stack)
            #expect(refused.status == 1)
            #expect(refused.log.contains(
                "tally currency load: \(broken): currency data is malformed: currencies[3].minor_units: expected Int; nothing was changed"),
                "\(refused.log)")
            #expect(try await client.call("currency.get", ["code": "CHF"]).result?["name"] == "Helvetic Franc")

            // A restarted worker keeps the operator's file; --embedded goes back.
            try stack.startWorker("currency")
            try await stack.waitForWorkers("currency", count: 2)
            #expect(try await client.call("currency.status").result?["data_version"] == "renamed CHF")
            let back = try await tally(["currency", "load", "--embedded", "--data-dir", dataDir], in: stack)
            #expect(back.status == 0, "\(back.log)")
            #expect(try await client.call("currency.get", ["code": "CHF"]).result?["name"] == "Swiss Franc")
        }
    }

    // MARK: Helpers

    private func waitForCurrencyData(_ stack: TallyStack) async throws {
        let client = try stack.client(timeout: .seconds(2))
        try await stack.waitUntil("the currency data is loaded", timeout: .seconds(30)) {
            (try? await client.call("currency.status"))?.result?["state"] == "ready"
        }
    }

    private func codes(_ reply: Reply) -> [String] {
        (reply.result?["currencies"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue }
    }

    /// Runs `tally` to completion; returns its exit status and output.
    private func tally(_ arguments: [String], in stack: TallyStack) async throws -> (status: Int32, log: String) {
        let process = try stack.launch("cli", arguments)
        #expect(await process.waitForExit(timeout: .seconds(30)))
        return (process.exitStatus ?? -1, process.log)
    }

    /// ops/currency-data/currencies.json, changed by `change`, written into the stack's directory.
    private func writeCurrencyFile(in stack: TallyStack, named name: String, _ change: (inout [String: Any]) -> Void) throws -> String {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let original = try Data(contentsOf: repository.appendingPathComponent("ops/currency-data/currencies.json"))
        var json = try JSONSerialization.jsonObject(with: original) as! [String: Any]
        change(&json)
        let path = stack.directory.appendingPathComponent(name).path
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        return path
    }
}
