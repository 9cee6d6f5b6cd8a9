import TallyProtocol
import TallyStorage

extension CommandTable {
    /// Registers `<service>.events`: the service's outbox after a sequence, for subscribers that
    /// missed a publish (a worker crashed after its commit, a notifier restarted, a gap).
    ///
    /// Args: `after` (sequence, default 0), `limit` (1 to 1000, default 100). Result: `events`
    /// (CloudEvents, oldest first), `last_sequence` (the newest stored, 0 when none), and the
    /// database's `epoch` with the sequence it `epoch_began_after` (see `EventEpoch`).
    public mutating func eventFeed(_ store: @escaping @Sendable (Resources) -> ServiceStore) {
        query(
            "\(service).events", access: .role("service"),
            "The \(service) service's domain events after a sequence, oldest first, for subscribers that missed some."
        ) { args, _, _, resources in
            try args.allowOnly(["after", "limit"])
            let after = try args.optionalInteger("after", in: 0...Int.max) ?? 0
            let limit = try args.limit(PageSize(default: 100, largest: 1000))
            let store = store(resources)
            return EventPage(
                events: try store.events(after: Int64(after), limit: limit), lastSequence: try store.lastEventSequence(),
                epoch: store.epoch.id, epochBeganAfter: store.epoch.beganAfter)
        }
    }
}

struct EventPage: Encodable, Sendable {
    let events: [CloudEvent]
    let lastSequence: Int64
    let epoch: String
    let epochBeganAfter: Int64
}
