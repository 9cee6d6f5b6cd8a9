import Foundation
import TallyClient
import TallyGateway
import TallyNotifier
import TallyProtocol
import ZeroMQ

/// One look at a running deployment, as `tally status` shows it and `tally status --json` prints
/// it: the gateway's `system.services`, and the notifier's `alerts.status` or why it could not say.
struct StatusSample: Codable, Sendable {
    var gateway: ServicesReport
    /// `null` when the notifier did not answer; `notifierError`, present only then, says why.
    @NullWhenAbsent var notifier: NotifierStatus?
    var notifierError: TallyError?
}

/// Where samples come from: two open queries to the gateway, each one try of a Lazy Pirate REQ
/// socket bounded by the connection's timeout. Blocking: call `fetch` on a thread of its own.
struct StatusSource: Sendable {
    let requester: LazyPirateRequester
    let deadlineMs: Int

    /// Asks the gateway for `system.services` and, when the `alerts` service has a live worker,
    /// for `alerts.status`. Without one it does not ask: the request would wait in the gateway's
    /// queue for its whole deadline. Throws `ClientError` when the gateway does not answer, and
    /// returns early (throwing) when `stop` fires.
    func fetch(stop: WakeupSignal?) throws -> StatusSample {
        let gateway = try decode(ServicesReport.self, from: try call("system.services", stop: stop).get())
        let alertsWorkers = gateway.services.first { $0.name == "alerts" }?.workers ?? 0
        guard alertsWorkers > 0 else {
            return StatusSample(
                gateway: gateway, notifier: nil,
                notifierError: TallyError(.unavailable, "the alerts service has no live worker: is tally notifier running?"))
        }
        do {
            switch try call("alerts.status", stop: stop) {
            case .success(let result): return StatusSample(gateway: gateway, notifier: try decode(NotifierStatus.self, from: result))
            case .failure(let error): return StatusSample(gateway: gateway, notifier: nil, notifierError: error)
            }
        } catch let error as ClientError {
            return StatusSample(gateway: gateway, notifier: nil, notifierError: TallyError(.unavailable, "alerts.status: \(error)"))
        }
    }

    private func call(_ command: String, stop: WakeupSignal?) throws -> Result<JSONValue, TallyError> {
        let envelope = Envelope(command: command, deadlineMs: deadlineMs)
        let frames = try requester.request(envelope.encoded(), stop: stop)
        guard frames.count == 1, let reply = try? Reply.decode(frames[0]) else {
            throw ClientError.malformedReply(String(decoding: (frames.first ?? Data()).prefix(200), as: UTF8.self))
        }
        return reply.outcome
    }

    private func decode<T: Decodable>(_ type: T.Type, from result: JSONValue) throws -> T {
        do {
            return try TallyJSON.decode(type, from: result)
        } catch {
            throw ClientError.malformedReply("a \(T.self) that does not read: \(error)")
        }
    }
}
