import TallyProtocol
import TallyStorage

/// A shift on one day, as the schedule shows it: when, who works it now, who the schedule gave it
/// to, and the open trade on it, if any.
struct Occurrence: Sendable {
    let slot: Slot
    let shift: Shift
    let team: Team
    /// Who works it now: the shift's assignee, unless an approved trade (or a leaver) changed this
    /// one day. Nil: open, wanted (gezocht).
    let assignee: String?
    /// The open trade on it: offered, requested or awaiting approval.
    let openTrade: OpenTrade?

    var key: OccurrenceKey { slot.key }

    /// `open`, `assigned`, or the state of its open trade.
    var status: String { openTrade?.state.rawValue ?? (assignee == nil ? "open" : "assigned") }

    /// "Cashier on Saturday 2030-03-30, 09:00–17:00 at Corner Store", for messages.
    var label: String {
        let zone = team.timeZone
        let start = zone.local(slot.startsAt)
        let end = zone.local(slot.endsAt)
        return "\(shift.position) on \(slot.date.weekday.name.capitalized) \(start.date), "
            + "\(TimeOfDay(minutes: start.minute)!)–\(TimeOfDay(minutes: end.minute)!) at \(team.name)"
    }

    func slotResult() -> SlotResult { SlotResult(slot, shift: shift, team: team) }

    func result(_ people: PeopleDirectory) -> OccurrenceResult {
        OccurrenceResult(
            slot: slotResult(), status: status, assignee: people.person(assignee), scheduledAssignee: people.person(shift.assignee),
            trade: openTrade.map { OpenTradeResult(id: $0.id, kind: $0.kind.rawValue, state: $0.state.rawValue) })
    }
}

/// The open trade on an occurrence, as the schedule shows it.
struct OpenTrade: Sendable {
    let id: Int64
    let kind: TradeKind
    let state: TradeState
    let fromUserID: String?
    let toUserID: String?
}

/// An occurrence inside a trade: when and what, without who (the trade says who).
struct SlotResult: Codable, Sendable {
    let shiftID: Int64
    let teamID: Int64
    let date: String
    let weekday: String
    /// RFC 3339 with the offset in force: `2030-03-30T09:00:00+01:00`.
    let startsAt: String
    let endsAt: String
    let timeZone: String
    /// The real length: one hour less or more than the wall clock says when a change falls inside.
    let minutes: Int
    let position: String

    init(_ slot: Slot, shift: Shift, team: Team) {
        shiftID = shift.id
        teamID = team.id
        date = slot.date.description
        weekday = slot.date.weekday.name
        startsAt = team.timeZone.rfc3339(slot.startsAt)
        endsAt = team.timeZone.rfc3339(slot.endsAt)
        timeZone = team.timeZone.identifier
        minutes = slot.minutes
        position = shift.position
    }
}

/// An occurrence in a schedule: its slot's fields, and who works it.
struct OccurrenceResult: Encodable, Sendable {
    @Inlined var slot: SlotResult
    /// `open`, `assigned`, `offered`, `requested` or `awaiting_approval`.
    let status: String
    /// Absent when open.
    let assignee: PersonResult?
    /// Who the schedule gives it to; differs from `assignee` after an approved trade.
    let scheduledAssignee: PersonResult?
    let trade: OpenTradeResult?
}

struct OpenTradeResult: Codable, Sendable {
    let id: Int64
    let kind: String
    let state: String
}
