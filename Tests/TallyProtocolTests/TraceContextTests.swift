import Foundation
import TallyProtocol
import Testing

/// W3C trace context as Tally reads it: `TraceParent`, and the envelope's `traceparent` and
/// `tracestate` (docs/protocol.md, 3.1).
@Suite struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func aTraceparentIsReadIntoItsParts() throws {
        let parent = try #require(TraceParent(Self.valid))
        #expect(parent.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(parent.spanID == "00f067aa0ba902b7")
        #expect(parent.sampled)
        #expect(parent.text == Self.valid)
        #expect(TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.sampled == false)
        // A later version may carry more fields after the flags; they are ignored.
        #expect(TraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more")?.traceID == parent.traceID)
    }

    @Test func malformedTraceparentsAreRefused() {
        let samples = [
            "", "00-abc-def-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // upper case
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // all-zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // all-zero span id
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",  // version 00 is exactly 55
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ]
        for sample in samples {
            #expect(TraceParent(sample) == nil, "\(sample)")
        }
    }

    @Test func aNewTraceIsWellFormedAndSampled() throws {
        let first = TraceParent.newTrace()
        #expect(TraceParent(first.text) == first)
        #expect(first.sampled)
        #expect(TraceParent.newTrace().traceID != first.traceID)
    }

    @Test func theEnvelopeCarriesTraceContextAndRefusesAMalformedOne() throws {
        let envelope = try Envelope.decode(Data(#"{"command":"calc.tip","traceparent":"\#(Self.valid)","tracestate":"a=1"}"#.utf8))
        #expect(envelope.traceparent == Self.valid)
        #expect(envelope.tracestate == "a=1")
        #expect(try EnvelopeHead.decode(envelope.encoded()).traceparent == Self.valid)
        #expect(RequestContext(envelope: envelope).traceparent == Self.valid)
        for bad in [#""00-abc-def-01""#, "12"] {
            #expect(throws: TallyError.self) { try EnvelopeHead.decode(Data(#"{"command":"calc.tip","traceparent":\#(bad)}"#.utf8)) }
            do {
                _ = try Envelope.decode(Data(#"{"command":"calc.tip","traceparent":\#(bad)}"#.utf8))
                Issue.record("accepted traceparent \(bad)")
            } catch {
                #expect(error.field == "traceparent")
                #expect(error.code == .invalidArgument)
            }
        }
        let long = String(repeating: "x", count: 513)
        #expect(throws: TallyError.self) { try Envelope.decode(Data(#"{"command":"calc.tip","tracestate":"\#(long)"}"#.utf8)) }
    }

    @Test func anEventCarriesItsTraceparentThroughTheWire() throws {
        let event = CloudEvent(
            id: "e", source: "tally/shopping", type: "shopping.price_changed", time: "2026-01-01T00:00:00.000Z", sequence: 1,
            data: [:], traceparent: Self.valid)
        #expect(try CloudEvent.decode(event.encoded()).traceparent == Self.valid)
        #expect(try TallyJSON.decode(CloudEvent.self, from: event.encoded()) == event)
    }
}
