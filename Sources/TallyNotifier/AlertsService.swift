import Foundation
import TallyProtocol
import TallyWorker

/// The `alerts` service: stored alerts, for a client that was offline (or a `tally watch` that
/// found a gap) to catch up. Served by the notifier process, and by `tally worker alerts`
/// replicas that read the same `notifier.sqlite`.
public struct AlertsService: ServiceHandler {
    public static let table = CommandTable<NotifierStore>("alerts") { table in
        table.query("alerts.list", "Stored alerts after a sequence, by kind or owner, a page at a time.") { args, _, store in
            try Self.list(args, store)
        }
    }

    static let defaultLimit = 100
    static let largestLimit = 500

    public let resources: NotifierStore

    public init(store: NotifierStore) {
        resources = store
    }

    /// `alerts.list`: alerts after a sequence, oldest first, optionally of one kind or owner, a page at a time.
    static func list(_ args: Arguments, _ store: NotifierStore) throws -> AlertPage {
        try args.allowOnly(["after", "kind", "owner", "limit"])
        let after = try args.optionalInteger("after", in: 0...Int.max) ?? 0
        let limit = try args.optionalInteger("limit", in: 1...largestLimit) ?? defaultLimit
        let kind = try args.optionalString("kind")
        let owner = try args.optionalString("owner")
        for (key, value) in [("kind", kind), ("owner", owner)] {
            if let value, value.isEmpty || value.utf8.count > 128 {
                throw TallyError.invalidArgument("\(key) must be 1 to 128 bytes", field: args.field(key))
            }
        }
        return try store.alerts(after: Int64(after), kind: kind, owner: owner, limit: limit)
    }
}
