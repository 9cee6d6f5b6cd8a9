import Foundation
import FuzzSupport
import TallyClient
import TallyNotifier
import TallyProtocol

/// Events as the notifier's inlet receives them, one per line: `CloudEvent.decode` (compared with
/// `JSONDecoder`), then the
/// alert rules (`AlertRules.alerts(for:)`). What the notifier publishes from an event it accepted
/// must read back on the other side: the event it forwards, and each alert as `tally watch`
/// decodes it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvents(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count) { input in
        for line in FuzzLines.split(input) {
            let decoded = try? CloudEvent.decode(line)
            // `CloudEvent.decode` reads with JSONReader what JSONDecoder reads (past a NUL byte,
            // which is never JSON, Foundation is erratically lenient: see the json target).
            // JSONDecoder does not look into members it does not read (it accepts a string of
            // invalid UTF-8 there); CloudEvent.decode refuses any text that is not JSON throughout.
            if !line.contains(0) {
                let foundation = (try? JSONDecoder().decode(CloudEvent.self, from: line)).flatMap { event in
                    !event.id.isEmpty && !event.type.isEmpty && event.sequence >= 1 && !event.service.isEmpty ? event : nil
                }
                if decoded != nil || (try? JSONReader.parse(line)) != nil {
                    Fuzz.require(decoded == foundation, "CloudEvent.decode and JSONDecoder read an event differently")
                }
            }
            guard let event = decoded else { continue }
            Fuzz.require(!event.service.isEmpty, "an accepted event has no service")
            Fuzz.require(event.encoded() == (try? TallyJSON.encode(event)), "an event is not written as TallyJSON writes it")
            Fuzz.require((try? CloudEvent.decode(event.encoded())) == event, "a forwarded event does not read back")
            for (offset, draft) in AlertRules.alerts(for: event).enumerated() {
                let alert = Alert(
                    sequence: Int64(offset + 1), kind: draft.kind, owner: draft.owner, text: draft.text, time: event.time,
                    source: event.source, eventID: event.id, data: draft.data)
                Fuzz.require(
                    (try? TallyJSON.decode(Alert.self, from: alert.encoded())) == alert, "a published alert does not read back")
            }
        }
    }
}
