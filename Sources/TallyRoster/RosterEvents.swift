import TallyProtocol
import TallyStorage

/// The roster's domain events, recorded with the change that makes them (schemas under
/// `schemas/events/roster.*.json`). Each names its team; the subject is `<team id>/<what>/<id>`.
///
/// Trade events carry `notify`: the user ids an alert about it should reach (the people
/// involved, the team's managers, the colleagues who could take a shift), worked out when it
/// happens, so the notifier needs no roster data to address its alerts.
struct TradeEvent: DomainEvent {
    enum Kind: String, Sendable, CaseIterable {
        case shiftOffered = "roster.shift_offered"
        case shiftTaken = "roster.shift_taken"
        case takeUndone = "roster.take_undone"
        case shiftVolunteered = "roster.shift_volunteered"
        case swapRequested = "roster.swap_requested"
        case swapAccepted = "roster.swap_accepted"
        case approvalRequested = "roster.approval_requested"
        case changeApproved = "roster.change_approved"
        case changeDeclined = "roster.change_declined"
        case tradeWithdrawn = "roster.trade_withdrawn"
        case tradeExpired = "roster.trade_expired"
    }

    let kind: Kind
    let team: TeamRef
    let trade: TradeResult
    /// Who did it (a manager, when acting for someone); absent when the service did (expiry).
    let by: String?
    /// Who an alert about it goes to, sorted, without duplicates.
    let notify: [String]

    var type: String { kind.rawValue }
    var subject: String? { "\(team.id)/trades/\(trade.id)" }

    enum CodingKeys: String, CodingKey {
        case team, trade, by, notify
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(team, forKey: .team)
        try container.encode(trade, forKey: .trade)
        try container.encodeIfPresent(by, forKey: .by)
        try container.encode(notify, forKey: .notify)
    }
}

/// `roster.team_created`, `roster.team_updated`: the team as the change left it.
struct TeamEvent: DomainEvent {
    let type: String
    let team: TeamResult
    let by: String
    /// The settings that changed (update only).
    let changed: [String]?

    var subject: String? { "\(team.id)/team/\(team.id)" }
    enum CodingKeys: String, CodingKey { case team, by, changed }
}

/// `roster.invite_created`: an invite exists (never its code, which is the invitee's to keep).
struct InviteEvent: DomainEvent {
    let type = "roster.invite_created"
    let team: TeamRef
    let inviteID: Int64
    let role: String
    let expiresAt: String
    let by: String

    var subject: String? { "\(team.id)/invites/\(inviteID)" }
    enum CodingKeys: String, CodingKey {
        case team, role, by
        case inviteID = "invite_id"
        case expiresAt = "expires_at"
    }
}

/// `roster.member_joined`, `roster.member_role_changed`, `roster.member_removed`.
struct MemberEvent: DomainEvent {
    let type: String
    let team: TeamRef
    let member: MemberResult
    let by: String
    /// Removal only: the shifts that became open because the member worked them.
    let openedShifts: [Int64]?

    var subject: String? { "\(team.id)/members/\(member.userID)" }
    enum CodingKeys: String, CodingKey {
        case team, member, by
        case openedShifts = "opened_shifts"
    }
}

/// `roster.shift_added`, `roster.shift_updated`, `roster.shift_removed`: the shift as the change left it.
struct ShiftEvent: DomainEvent {
    let type: String
    let team: TeamRef
    let shift: ShiftResult
    let by: String
    /// Update only: the fields that changed.
    let changed: [String]?

    var subject: String? { "\(team.id)/shifts/\(shift.id)" }
    enum CodingKeys: String, CodingKey { case team, shift, by, changed }
}

/// `roster.hours_recorded`: hours worked on an occurrence, and what they replaced.
struct HoursEvent: DomainEvent {
    let type = "roster.hours_recorded"
    let team: TeamRef
    let record: HoursRecordResult
    let previousMinutes: Int?
    let by: String

    var subject: String? { "\(team.id)/hours/\(record.shift.shiftID)/\(record.shift.date)" }
    enum CodingKeys: String, CodingKey {
        case team, record, by
        case previousMinutes = "previous_minutes"
    }
}
