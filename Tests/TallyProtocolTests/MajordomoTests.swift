import Foundation
import Testing

@testable import TallyProtocol

@Suite struct MajordomoTests {
    private let header = Data("MDPW01".utf8)

    @Test func workerMessagesHaveTheSpecifiedLayout() {
        #expect(Majordomo.WorkerMessage.ready(service: "calc").frames == [Data(), header, Data([1]), Data("calc".utf8)])
        // Tally's extension: the capacity after the service name, only when more than one.
        #expect(Majordomo.WorkerMessage.ready(service: "calc", capacity: 16).frames == [Data(), header, Data([1]), Data("calc".utf8), Data("16".utf8)])
        // And the description of a service's commands, last.
        #expect(
            Majordomo.WorkerMessage.ready(service: "echo", capacity: 2, description: Data("{}".utf8)).frames
                == [Data(), header, Data([1]), Data("echo".utf8), Data("2".utf8), Data("{}".utf8)])
        #expect(Majordomo.WorkerMessage.heartbeat.frames == [Data(), header, Data([4])])
        #expect(Majordomo.WorkerMessage.disconnect.frames == [Data(), header, Data([5])])
        // Tally's extension: a worker that drains before it leaves.
        #expect(Majordomo.WorkerMessage.drain.frames == [Data(), header, Data([5]), Data("drain".utf8)])
        #expect(
            Majordomo.WorkerMessage.reply(client: Data([9]), body: [Data("b".utf8)]).frames
                == [Data(), header, Data([3]), Data([9]), Data(), Data("b".utf8)])
        // Tally's extension: the reply's outcome before the delimiter, for a broker that asked.
        #expect(
            Majordomo.WorkerMessage.replyWithOutcome(client: Data([9]), outcome: "not_found", body: [Data("b".utf8)]).frames
                == [Data(), header, Data([3]), Data([9]), Data("not_found".utf8), Data(), Data("b".utf8)])
        #expect(Majordomo.BrokerMessage.welcome.frames == [Data(), header, Data([4]), Data("outcome".utf8)])
    }

    @Test func workerMessagesRoundTrip() {
        let messages: [Majordomo.WorkerMessage] = [
            .ready(service: "calc"), .ready(service: "my-echo", capacity: 1000), .ready(service: "echo", description: Data("{}".utf8)),
            .ready(service: "echo", capacity: 4, description: Data(#"{"commands":[]}"#.utf8)), .heartbeat, .disconnect, .drain,
            .reply(client: Data([1, 2]), body: [Data("x".utf8), Data()]), .replyWithOutcome(client: Data([1, 2]), outcome: "ok", body: [Data("x".utf8)]),
            .ready(service: "calc", takesTraceContext: true), .ready(service: "calc", capacity: 16, takesTraceContext: true),
            .ready(service: "echo", capacity: 2, description: Data("{}".utf8), takesTraceContext: true),
        ]
        for message in messages {
            #expect(Majordomo.WorkerMessage(frames: message.frames[...]) == message)
        }
    }

    @Test func malformedWorkerMessagesAreRefused() {
        let samples: [[Data]] = [
            [], [Data()], [Data(), header], [Data("x".utf8), header, Data([4])], [Data(), Data("MDPW02".utf8), Data([4])],
            [Data(), header, Data([9])], [Data(), header, Data([1, 1])], [Data(), header, Data([1])],
            [Data(), header, Data([1]), Data()], [Data(), header, Data([4]), Data("extra".utf8)],
            [Data(), header, Data([3]), Data([1])], [Data(), header, Data([3]), Data([1]), Data("not empty".utf8), Data()],
            [Data(), header, Data([2]), Data([1]), Data(), Data()],
            // An outcome that is not a code, or not followed by the delimiter.
            [Data(), header, Data([3]), Data([1]), Data("Not_Found".utf8), Data(), Data()],
            [Data(), header, Data([3]), Data([1]), Data("ok".utf8), Data("x".utf8)],
            [Data(), header, Data([1]), Data("calc".utf8), Data("0".utf8)], [Data(), header, Data([1]), Data("calc".utf8), Data("1001".utf8)],
            [Data(), header, Data([1]), Data("calc".utf8), Data("+5".utf8)], [Data(), header, Data([1]), Data("calc".utf8), Data()],
            [Data(), header, Data([1]), Data("calc".utf8), Data("8".utf8), Data("8".utf8)],
            [Data(), header, Data([5]), Data("drains".utf8)], [Data(), header, Data([5]), Data("drain".utf8), Data()],
            // The description comes last, after the capacity, and once.
            [Data(), header, Data([1]), Data("echo".utf8), Data("{}".utf8), Data("8".utf8)],
            [Data(), header, Data([1]), Data("echo".utf8), Data("{}".utf8), Data("{}".utf8)],
            [Data(), header, Data([1]), Data("echo".utf8), Data("8".utf8), Data("{}".utf8), Data("{}".utf8)],
            // The trace-context request comes last, once.
            [Data(), header, Data([1]), Data("calc".utf8), Data("traceparent".utf8), Data("8".utf8)],
            [Data(), header, Data([1]), Data("calc".utf8), Data("traceparent".utf8), Data("traceparent".utf8)],
        ]
        for frames in samples {
            #expect(Majordomo.WorkerMessage(frames: frames[...]) == nil, "\(frames)")
        }
    }

    @Test func brokerMessagesRoundTrip() {
        let request = Majordomo.BrokerMessage.request(client: Data([0, 0, 0, 1]), body: [Data("{}".utf8)])
        #expect(request.frames == [Data(), header, Data([2]), Data([0, 0, 0, 1]), Data(), Data("{}".utf8)])
        #expect(Majordomo.BrokerMessage(frames: request.frames) == request)
        #expect(Majordomo.BrokerMessage(frames: Majordomo.BrokerMessage.welcome.frames) == .welcome)
        // With the gateway's trace context, between the client token and the delimiter (6.1).
        let traceparent = Data("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".utf8)
        let traced = Majordomo.BrokerMessage.request(client: Data([0, 0, 0, 1]), traceparent: traceparent, body: [Data("{}".utf8)])
        #expect(traced.frames == [Data(), header, Data([2]), Data([0, 0, 0, 1]), traceparent, Data(), Data("{}".utf8)])
        #expect(Majordomo.BrokerMessage(frames: traced.frames) == traced)
        #expect(Majordomo.BrokerMessage(frames: [Data(), header, Data([2]), Data([1]), traceparent, Data("{}".utf8)]) == nil)
        #expect(Majordomo.WorkerMessage.ready(service: "calc", capacity: 16, takesTraceContext: true).frames
            == [Data(), header, Data([1]), Data("calc".utf8), Data("16".utf8), Data("traceparent".utf8)])
        #expect(Majordomo.BrokerMessage(frames: [Data(), header, Data([4]), Data("other".utf8)]) == nil)
        #expect(Majordomo.BrokerMessage(frames: [Data(), header, Data([2]), Data([1])]) == nil)
        #expect(Majordomo.BrokerMessage(frames: [Data(), header, Data([1]), Data("calc".utf8)]) == nil)
    }

    @Test func messagesWithMoreFramesThanTheyCanUseAreMalformed() {
        let limit = Majordomo.maximumBodyFrames
        let client = Data([0, 0, 0, 1])
        let full = Array(repeating: Data("x".utf8), count: limit)
        let over = full + [Data()]
        // A reply or request may carry up to the limit of body frames, not one more.
        #expect(Majordomo.WorkerMessage(frames: Majordomo.WorkerMessage.reply(client: client, body: full).frames[...]) != nil)
        #expect(Majordomo.WorkerMessage(frames: Majordomo.WorkerMessage.reply(client: client, body: over).frames[...]) == nil)
        #expect(Majordomo.BrokerMessage(frames: Majordomo.BrokerMessage.request(client: client, body: full).frames) != nil)
        #expect(Majordomo.BrokerMessage(frames: Majordomo.BrokerMessage.request(client: client, body: over).frames) == nil)
        // The gateway's HEARTBEAT and DISCONNECT are three frames; a worker ignores longer ones.
        #expect(Majordomo.BrokerMessage(frames: [Data(), header, Data([4]), Data("extra".utf8)]) == nil)
        #expect(Majordomo.BrokerMessage(frames: [Data(), header, Data([5]), Data()]) == nil)
    }
}
