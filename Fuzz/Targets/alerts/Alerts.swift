import Foundation
import FuzzSupport
import TallyClient
import TallyProtocol

/// What `tally watch` reads, one message per line, in the order it reads them: a live alert
/// (decoded as `Alert` and given to its `WatchSeam`), else a heartbeat (`last_alert_sequence`),
/// else a reply of `alerts.list` (decoded as an `AlertPage` and applied to the seam). Live alerts
/// only move the seam forward, and show each sequence at most once (a page may move it back: a
/// notifier whose database was replaced numbers from 1 again).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAlerts(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count) { input in
        var seam = WatchSeam(since: nil)
        var shown: Set<Int64> = []
        for line in FuzzLines.split(input) {
            let before = seam.covered
            if let alert = try? TallyJSON.decode(Alert.self, from: line) {
                if case .show(let alert) = seam.live(alert) {
                    Fuzz.require(shown.insert(alert.sequence).inserted, "alert \(alert.sequence) shown twice")
                }
                Fuzz.require(before.map { $0 <= seam.covered ?? .min } ?? true, "a live alert moved the seam back")
            } else if let last = (try? JSONReader.parse(line))?["last_alert_sequence"]?.intValue {
                _ = seam.needsFetch(lastAlertSequence: last)
            } else if let reply = try? Reply.decode(line), let result = reply.result,
                let page = try? TallyJSON.decode(AlertPage.self, from: result)
            {
                _ = seam.apply(page, baselineOnly: seam.covered == nil)
                shown = []
            }
        }
    }
}
