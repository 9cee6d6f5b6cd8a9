import Foundation
import TallyProtocol

/// The services the gateway answers itself: `system.*` and 8/MMI's `mmi.*`.
extension Broker {
    func answerGatewayCommand(_ body: Data, head: EnvelopeHead) -> Data {
        do {
            let envelope = try Envelope.decode(body)
            let args = try Arguments(envelope.args)
            switch envelope.command {
            case "system.ping":
                try args.allowOnly([])
                return try Reply.success(id: envelope.id, result: Ping(pong: true, uptimeMs: (clock.now - startedAt).roundedMilliseconds))
            case "system.services":
                try args.allowOnly([])
                return try Reply.success(id: envelope.id, result: servicesReport())
            case "system.describe":
                return try Reply.success(id: envelope.id, result: describe(args))
            case "mmi.service":
                try args.allowOnly(["service"])
                let service = try args.string("service", example: "a service name such as \"calc\"")
                return try Reply.success(
                    id: envelope.id, result: MMIAnswer(service: service, code: mmiCode(service: envelope.command, asking: service)))
            default:
                if envelope.command.hasPrefix("mmi.") {
                    return try Reply.success(id: envelope.id, result: MMIAnswer(service: nil, code: "501"))
                }
                return Reply.failure(id: envelope.id, error: TallyError(
                    .unimplemented, "unknown command '\(envelope.command)'; the gateway answers system.describe, system.ping, system.services and mmi.service",
                    field: "command"))
            }
        } catch let error as TallyError {
            return Reply.failure(id: head.id, error: error)
        } catch {
            return Reply.failure(id: head.id, error: TallyError(.internal, "could not encode the gateway's answer"))
        }
    }

    /// 8/MMI: "200" while `asking` has a live worker, "404" if not, "501" for any MMI call but `mmi.service`.
    func mmiCode(service mmiCommand: String, asking: String?) -> String {
        guard mmiCommand == "mmi.service" else { return "501" }
        guard let asking else { return "404" }
        if CommandCatalog.gatewayServices.contains(asking) { return "200" }
        return (services[asking]?.liveWorkers ?? 0) > 0 ? "200" : "404"
    }

    func servicesReport() -> ServicesReport {
        var busy: [String: Int] = [:]
        for worker in workers.values where !worker.held.isEmpty { busy[worker.service, default: 0] += 1 }
        let rows = services.values.sorted { $0.name < $1.name }.map { service in
            let recent = service.recent.percentiles()
            return ServicesReport.Row(
                name: service.name, workers: service.liveWorkers, busy: busy[service.name] ?? 0,
                queued: service.queue.count, requests: service.served, errors: service.errors,
                meanHandlingMs: (service.meanHandlingMilliseconds * 1000).rounded() / 1000,
                recent: ServicesReport.Recent(requests: recent.requests, p50Ms: recent.p50, p90Ms: recent.p90, p99Ms: recent.p99))
        }
        return ServicesReport(
            services: rows, uptimeMs: (clock.now - startedAt).roundedMilliseconds,
            recentWindowMs: RecentLatency.window.roundedMilliseconds)
    }
}

struct Ping: Encodable {
    let pong: Bool
    let uptimeMs: Int
}

struct MMIAnswer: Encodable {
    let service: String?
    let code: String
}

/// `system.services`: the operator's view of each service. Public and decodable for the clients
/// that read it (`tally status`).
public struct ServicesReport: Codable, Sendable {
    public struct Row: Codable, Sendable {
        public let name: String
        /// Live workers: registered and heartbeating.
        public let workers: Int
        public let busy: Int
        public let queued: Int
        /// Requests answered by a worker.
        public let requests: Int
        /// Error replies, from workers or from the gateway on the service's behalf.
        public let errors: Int
        public let meanHandlingMs: Double
        public let recent: Recent
    }

    /// Requests a worker answered within the recent window, and percentiles of their handling
    /// times (null while there are none): what the mean since start hides, a slow tail now.
    public struct Recent: Codable, Sendable {
        public let requests: Int
        @NullWhenAbsent public var p50Ms: Double?
        @NullWhenAbsent public var p90Ms: Double?
        @NullWhenAbsent public var p99Ms: Double?
    }

    public let services: [Row]
    public let uptimeMs: Int
    /// How far back `recent` reaches at most.
    public let recentWindowMs: Int
}
