import TallyProtocol
import TallyStorage

/// The roster's domain events, recorded with the change that makes them (schemas under
/// `schemas/events/roster.*.json`). Each names its team; the subject is `<team id>/<what>/<id>`.
///
/// Trade events carry `notify`: the user ids an alert about it should reach (the people
/// involved, the team's managers, the colleagues who could take a shift), worked out when it
/// happens, so the notifier needs no roster data to address its alerts.
enum RosterEvent: ServiceEvent {
    case teamCreated(TeamEvent)
    case teamUpdated(TeamEvent)
    case inviteCreated(InviteEvent)
    case memberJoined(MemberEvent)
    case memberRoleChanged(MemberEvent)
    case memberRemoved(MemberEvent)
    case shiftAdded(ShiftEvent)
    case shiftUpdated(ShiftEvent)
    case shiftRemoved(ShiftEvent)
    case hoursRecorded(HoursEvent)
    case shiftOffered(TradeEvent)
    case shiftTaken(TradeEvent)
    case takeUndone(TradeEvent)
    case shiftVolunteered(TradeEvent)
    case swapRequested(TradeEvent)
    case swapAccepted(TradeEvent)
    case approvalRequested(TradeEvent)
    case changeApproved(TradeEvent)
    case changeDeclined(TradeEvent)
    case tradeWithdrawn(TradeEvent)
    case tradeExpired(TradeEvent)

    var type: String {
        switch self {
        case .teamCreated: "roster.team_created"
        case .teamUpdated: "roster.team_updated"
        case .inviteCreated: "roster.invite_created"
        case .memberJoined: "roster.member_joined"
        case .memberRoleChanged: "roster.member_role_changed"
        case .memberRemoved: "roster.member_removed"
        case .shiftAdded: "roster.shift_added"
        case .shiftUpdated: "roster.shift_updated"
        case .shiftRemoved: "roster.shift_removed"
        case .hoursRecorded: "roster.hours_recorded"
        case .shiftOffered: "roster.shift_offered"
        case .shiftTaken: "roster.shift_taken"
        case .takeUndone: "roster.take_undone"
        case .shiftVolunteered: "roster.shift_volunteered"
        case .swapRequested: "roster.swap_requested"
        case .swapAccepted: "roster.swap_accepted"
        case .approvalRequested: "roster.approval_requested"
        case .changeApproved: "roster.change_approved"
        case .changeDeclined: "roster.change_declined"
        case .tradeWithdrawn: "roster.trade_withdrawn"
        case .tradeExpired: "roster.trade_expired"
        }
    }

    var payload: any EventPayload {
        switch self {
        case .teamCreated(let data), .teamUpdated(let data): data
        case .inviteCreated(let data): data
        case .memberJoined(let data), .memberRoleChanged(let data), .memberRemoved(let data): data
        case .shiftAdded(let data), .shiftUpdated(let data), .shiftRemoved(let data): data
        case .hoursRecorded(let data): data
        case .shiftOffered(let data), .shiftTaken(let data), .takeUndone(let data), .shiftVolunteered(let data),
            .swapRequested(let data), .swapAccepted(let data), .approvalRequested(let data), .changeApproved(let data),
            .changeDeclined(let data), .tradeWithdrawn(let data), .tradeExpired(let data):
            data
        }
    }
}

/// A trade moved (`roster.shift_offered` ... `roster.trade_expired`): the trade as it is now.
struct TradeEvent: EventPayload {
    let team: TeamRef
    let trade: TradeResult
    /// Who did it (a manager, when acting for someone); absent when the service did (expiry).
    let by: String?
    /// Who an alert about it goes to, sorted, without duplicates.
    let notify: [String]

    var subject: String? { "\(team.id)/trades/\(trade.id)" }
}

/// `roster.team_created`, `roster.team_updated`: the team as the change left it.
struct TeamEvent: EventPayload {
    let team: TeamResult
    let by: String
    /// The settings that changed (update only).
    let changed: [String]?

    var subject: String? { "\(team.id)/team/\(team.id)" }
}

/// `roster.invite_created`: an invite exists (never its code, which is the invitee's to keep).
struct InviteEvent: EventPayload {
    let team: TeamRef
    let inviteID: Int64
    let role: String
    let expiresAt: String
    let by: String

    var subject: String? { "\(team.id)/invites/\(inviteID)" }
}

/// `roster.member_joined`, `roster.member_role_changed`, `roster.member_removed`.
struct MemberEvent: EventPayload {
    let team: TeamRef
    let member: MemberResult
    let by: String
    /// Removal only: the shifts that became open because the member worked them.
    let openedShifts: [Int64]?

    var subject: String? { "\(team.id)/members/\(member.userID)" }
}

/// `roster.shift_added`, `roster.shift_updated`, `roster.shift_removed`: the shift as the change left it.
struct ShiftEvent: EventPayload {
    let team: TeamRef
    let shift: ShiftResult
    let by: String
    /// Update only: the fields that changed.
    let changed: [String]?

    var subject: String? { "\(team.id)/shifts/\(shift.id)" }
}

/// `roster.hours_recorded`: hours worked on an occurrence, and what they replaced.
struct HoursEvent: EventPayload {
    let team: TeamRef
    let record: HoursRecordResult
    let previousMinutes: Int?
    let by: String

    var subject: String? { "\(team.id)/hours/\(record.shift.shiftID)/\(record.shift.date)" }
}
