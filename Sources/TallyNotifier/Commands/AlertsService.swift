import Foundation
import TallyClient
import TallyProtocol
import TallyWorker

/// The `alerts` service: stored alerts, for a client that was offline (or a `tally watch` that
/// found a gap) to catch up. Served by the notifier process, and by `tally worker alerts`
/// replicas that read the same `notifier.sqlite`.
///
/// A caller lists only their own alerts (those whose `owner` is their user id); an admin may ask
/// for everyone's with `all_owners`.
///
/// `alerts.status` (how far behind the notifier is) is open to anyone, like the gateway's
/// `system.services`, which it completes for `tally status`: it holds counts of events and the
/// highest alert number, nothing of any person, so an operator needs no login to see it. (Who may
/// reach the gateway at all is CURVE's client allowlist.)
public struct AlertsService: ServiceHandler {
    public static let table = CommandTable<NotifierStore>("alerts") { table in
        table.query(
            "alerts.list", access: .user.flag("all_owners", needsRole: "admin"),
            "Your stored alerts after a sequence, by kind, a page at a time.", AlertsService.list)
        table.query(
            "alerts.status", "How far the notifier has handled each service's events, and the last alert.",
            AlertsService.status)
    }

    static let pageSize = PageSize(default: 100, largest: 500)

    public let resources: NotifierStore

    public init(store: NotifierStore) {
        resources = store
    }

    /// `alerts.list`: the caller's alerts after a sequence, oldest first, optionally of one kind, a
    /// page at a time; an admin's `all_owners` lists everyone's (the table declares that it needs
    /// the role, so `AccessControl` has refused anyone else).
    static func list(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: NotifierStore) throws -> AlertPage {
        let owner = caller.userID
        try args.allowOnly(["after", "kind", "limit", "all_owners"])
        let after = try args.optionalInteger("after", in: 0...Int.max) ?? 0
        let limit = try args.limit(pageSize)
        let kind = try args.optionalString("kind")
        if let kind, kind.isEmpty || kind.utf8.count > 128 {
            throw TallyError.invalidArgument("kind must be 1 to 128 bytes", field: args.field("kind"))
        }
        let allOwners = try args.optionalBool("all_owners") ?? false
        return try store.alerts(after: Int64(after), kind: kind, owner: allOwners ? nil : owner, limit: limit)
    }

    /// `alerts.status`: each source's handled and known sequences, and the last alert stored.
    static func status(_ args: Arguments, _ context: RequestContext, _ store: NotifierStore) throws -> NotifierStatus {
        try args.allowOnly([])
        return try store.status()
    }
}
