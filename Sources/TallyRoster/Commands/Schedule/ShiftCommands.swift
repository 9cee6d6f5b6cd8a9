import TallyProtocol
import TallyStorage

/// `roster.add_shift`: a weekly shift (`weekday`) or a one-off extra shift (`date`).
enum AddShiftCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try args.allowOnly(["team_id", "position", "start", "end", "duration_minutes", "assignee", "weekday", "from", "until", "date"])
        let teamID = try args.id("team_id", of: "one of your teams")
        let position = try args.text("position", longest: Shift.positionLength, what: "what the shift is, such as \"Cashier\"")
        guard let start = try args.optionalTime("start") else {
            throw TallyError.invalidArgument("start is required (the local time it starts, such as \"09:00\")", field: args.field("start"))
        }
        let duration = try ShiftLength.read(args, start: start, required: true)!
        let assignee = try args.optionalUserID("assignee")
        let weekday = try args.optionalWeekday("weekday")
        let date = try args.optionalDate("date")
        let from = try args.optionalDate("from")
        let until = try args.optionalDate("until")
        switch (weekday, date) {
        case (nil, nil):
            throw TallyError.invalidArgument(
                "give weekday for a shift every week (such as \"saturday\"), or date for a one-off shift (such as \"2030-03-30\")", field: args.field("weekday"))
        case (_?, _?):
            throw TallyError.invalidArgument("give weekday (every week) or date (once), not both", field: args.field("date"))
        case (nil, _?) where from != nil || until != nil:
            throw TallyError.invalidArgument(
                "from and until are for weekly shifts; a one-off shift has only its date", field: args.field(from != nil ? "from" : "until"))
        default: break
        }
        return try store.change(context, args, owner: caller.userID) { change in
            let team = try TeamAccess.manager(change.session, teamID: teamID, caller: caller, to: "add shifts").team
            if let assignee {
                _ = try TeamAccess.activeMember(change.session, team: team, userID: assignee, field: args.field("assignee"))
            }
            let startsOn = date ?? from ?? team.timeZone.date(at: change.now)
            if let until, until < startsOn {
                throw TallyError.invalidArgument("until (\(until)) is before the shift's first day (\(startsOn))", field: args.field("until"))
            }
            let shift = try Shift.insert(
                change.session, teamID: team.id, repeats: date == nil ? .weekly : .once, weekday: weekday ?? startsOn.weekday,
                start: start, durationMinutes: duration, position: position, assignee: assignee, startsOn: startsOn,
                endsOn: date ?? until, at: change.now)
            let result = shift.result(try Member.names(change.session, teamIDs: [team.id]))
            change.record(RosterEvent.shiftAdded(ShiftEvent(team: team.ref, shift: result, by: caller.userID, changed: nil)))
            return result
        }
    }
}

/// `roster.update_shift`: a shift's position, times, assignee or last day.
///
/// A change applies to the shift as a whole, every day it occurs (days an approved trade gave to
/// someone else keep that). To change a weekly shift from some day on and keep its past as it
/// was, end it (`until`) and add a new one from that day.
enum UpdateShiftCommand {
    static let changeable = ["assignee", "duration_minutes", "end", "position", "start", "unassign", "until"]

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try args.allowOnly(Set(changeable + ["shift_id"]))
        let shiftID = try args.id("shift_id", of: "a shift of one of your teams")
        try args.requireAny(of: changeable, for: "roster.update_shift")
        let position = try args.optionalText("position", longest: Shift.positionLength, what: "what the shift is, such as \"Cashier\"")
        let start = try args.optionalTime("start")
        let assignee = try args.optionalUserID("assignee")
        let unassign = try args.optionalBool("unassign") ?? false
        let until = try args.optionalDate("until")
        if assignee != nil && unassign {
            throw TallyError.invalidArgument("give assignee, or unassign to make the shift open, not both", field: args.field("unassign"))
        }
        return try store.change(context, args, owner: caller.userID) { change in
            let session = change.session
            var (shift, team) = try ShiftAccess.manager(session, shiftID: shiftID, caller: caller, to: "change shifts")
            let original = shift
            if let position { shift.position = position }
            if let start { shift.start = start }
            // A new start alone moves the shift and keeps its length; an end is read from the start.
            if let duration = try ShiftLength.read(args, start: shift.start, required: false) {
                shift.durationMinutes = duration
            }
            if let assignee {
                _ = try TeamAccess.activeMember(session, team: team, userID: assignee, field: args.field("assignee"))
                shift.assignee = assignee
            }
            if unassign { shift.assignee = nil }
            if let until {
                guard shift.repeats == .weekly else {
                    throw TallyError.invalidArgument("until is for weekly shifts; a one-off shift has only its date", field: args.field("until"))
                }
                guard until >= shift.startsOn else {
                    throw TallyError.invalidArgument(
                        "until (\(until)) is before the shift's first day (\(shift.startsOn)); to take it off the schedule, use roster.remove_shift",
                        field: args.field("until"))
                }
                shift.endsOn = until
            }
            let changed = [
                ("position", shift.position != original.position), ("start", shift.start != original.start),
                ("duration_minutes", shift.durationMinutes != original.durationMinutes), ("assignee", shift.assignee != original.assignee),
                ("until", shift.endsOn != original.endsOn),
            ].filter(\.1).map(\.0)
            if changed.contains(where: { $0 != "position" }) {
                // Open trades were agreed on the shift as it is: settle them first.
                try ShiftAccess.requireNoOpenTrades(session, shift: shift, team: team, to: "change its times, assignee or last day")
            }
            if !changed.isEmpty {
                shift.updatedAt = change.now
                try shift.update(session)
            }
            let result = shift.result(try Member.names(session, teamIDs: [team.id]))
            if !changed.isEmpty {
                change.record(RosterEvent.shiftUpdated(ShiftEvent(team: team.ref, shift: result, by: caller.userID, changed: changed)))
            }
            return result
        }
    }
}

/// `roster.remove_shift`: takes a shift off the schedule from its next occurrence that has not
/// started. What has started stays, as history; open trades on later days are withdrawn.
enum RemoveShiftCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try args.allowOnly(["shift_id"])
        let shiftID = try args.id("shift_id", of: "a shift of one of your teams")
        return try store.change(context, args, owner: caller.userID) { change in
            let session = change.session
            var (shift, team) = try ShiftAccess.manager(session, shiftID: shiftID, caller: caller, to: "remove shifts")
            let today = team.timeZone.date(at: change.now)
            let horizon = max(today.adding(days: 8), shift.startsOn)
            guard let first = shift.dates(from: today.adding(days: -1), through: horizon)
                .first(where: { shift.slot(on: $0, in: team.timeZone).startsAt > change.now })
            else {
                throw TallyError(.failedPrecondition, "shift \(shift.id) has no occurrence left that has not started: it is over already")
            }
            let people = try Member.names(session, teamIDs: [team.id])
            for trade in try Trade.inTeam(session, teamID: team.id, states: TradeState.open)
            where trade.occurrences.contains(where: { $0.shiftID == shift.id && $0.date >= first }) {
                try TradeTransitions.apply(.withdraw, to: trade, team: team, by: caller.userID, &change, people: people)
            }
            try session.execute("DELETE FROM assignment WHERE shift_id = \(shift.id) AND occurrence_date >= \(first.description)")
            shift.endsOn = first.adding(days: -1)
            shift.updatedAt = change.now
            try shift.update(session)
            let result = shift.result(people)
            change.record(RosterEvent.shiftRemoved(ShiftEvent(team: team.ref, shift: result, by: caller.userID, changed: nil)))
            return result
        }
    }
}

/// A shift's length from `end` or `duration_minutes` (exactly one).
enum ShiftLength {
    static func read(_ args: Arguments, start: TimeOfDay, required: Bool) throws(TallyError) -> Int? {
        let end = try args.optionalTime("end")
        let duration = try args.optionalInteger("duration_minutes", in: Shift.durations)
        switch (end, duration) {
        case (_?, _?):
            throw .invalidArgument("give end or duration_minutes, not both", field: args.field("duration_minutes"))
        case (let end?, nil):
            guard end != start else {
                throw .invalidArgument(
                    "end equals start; a shift of 24 hours is duration_minutes 1440", field: args.field("end"))
            }
            // An end at or before the start is the next morning: a night shift.
            return (end.minutes - start.minutes + TimeOfDay.minutesPerDay) % TimeOfDay.minutesPerDay
        case (nil, let duration?):
            return duration
        case (nil, nil):
            guard required else { return nil }
            throw .invalidArgument(
                "give end (the local time it ends, such as \"17:00\") or duration_minutes (such as 480)", field: args.field("end"))
        }
    }
}

/// A shift of a team the caller is in.
enum ShiftAccess {
    static func member(_ session: any SQLSession, shiftID: Int64, caller: Caller, field: String = "args.shift_id") throws -> (Shift, TeamAccess) {
        guard let shift = try Shift.find(session, id: shiftID),
            try Member.active(session, teamID: shift.teamID, userID: caller.userID) != nil
        else { throw TallyError(.notFound, "none of your teams has a shift \(shiftID)", field: field) }
        return (shift, try TeamAccess.member(session, teamID: shift.teamID, caller: caller))
    }

    static func manager(_ session: any SQLSession, shiftID: Int64, caller: Caller, to what: String) throws -> (Shift, Team) {
        let (shift, access) = try member(session, shiftID: shiftID, caller: caller)
        try access.requireManager(to: what)
        return (shift, access.team)
    }

    static func requireNoOpenTrades(_ session: any SQLSession, shift: Shift, team: Team, to what: String) throws {
        let open = try Trade.inTeam(session, teamID: team.id, states: TradeState.open)
            .filter { $0.occurrences.contains { $0.shiftID == shift.id } }
        guard open.isEmpty else {
            throw TallyError(
                .failedPrecondition,
                "shift \(shift.id) has open trades (\(open.map { "trade \($0.id), \($0.state.words)" }.joined(separator: "; "))); approve, decline or withdraw them before you \(what)")
        }
    }
}
