import TallyProtocol
import TallyStorage

extension CommandTable {
    /// Registers `<service>.events`: the service's outbox after a sequence, for subscribers that
    /// missed a publish (a worker crashed after its commit, a notifier restarted, a gap).
    ///
    /// Args: `after` (sequence, default 0), `limit` (1 to 1000, default 100). Result: `events`
    /// (CloudEvents, oldest first) and `last_sequence` (the newest stored, 0 when none).
    public mutating func registerEventFeed(_ log: EventLog) {
        register("\(log.service).events") { args, _ in
            try args.allowOnly(["after", "limit"])
            let after = try args.optionalInteger("after", in: 0...Int.max) ?? 0
            let limit = try args.optionalInteger("limit", in: 1...1000) ?? 100
            return EventPage(events: try log.events(after: Int64(after), limit: limit), lastSequence: try log.lastSequence())
        }
    }
}

struct EventPage: Encodable, Sendable {
    let events: [CloudEvent]
    let lastSequence: Int64

    enum CodingKeys: String, CodingKey {
        case events
        case lastSequence = "last_sequence"
    }
}
