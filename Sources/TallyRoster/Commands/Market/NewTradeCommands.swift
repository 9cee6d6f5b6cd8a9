import TallyProtocol
import TallyStorage

/// `roster.offer`: the worker of a shift offers one occurrence on the marketplace (aangeboden).
enum OfferCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try NewTradeCommand.run(args, caller, context, store, to: "offer a shift", as: "offered") { new, change in
            let occurrence = new.occurrence
            guard let worker = occurrence.assignee else {
                throw TallyError(
                    .failedPrecondition, "\(occurrence.label) is open: nobody works it to offer it. Volunteer for it with roster.volunteer")
            }
            try new.subject.mustBe(worker, "the one who works \(occurrence.label)", to: "offer it", people: new.people)
            return try TradeTransitions.create(
                .offer, team: new.team, occurrence: occurrence, other: nil, from: worker, to: nil, note: new.note, by: new.caller,
                &change, people: new.people)
        }
    }
}

/// `roster.volunteer`: a member volunteers for an open shift (gezocht).
enum VolunteerCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try NewTradeCommand.run(args, caller, context, store, to: "volunteer", as: "volunteered for") { new, change in
            if let worker = new.occurrence.assignee {
                throw TallyError(
                    .failedPrecondition,
                    "\(new.occurrence.label) is not open: \(new.people.name(worker)) works it. Ask them to offer it (roster.offer) or propose a swap")
            }
            return try TradeTransitions.create(
                .wanted, team: new.team, occurrence: new.occurrence, other: nil, from: nil, to: new.subject.userID, note: new.note,
                by: new.caller, &change, people: new.people)
        }
    }
}

/// `roster.propose_swap`: the worker of one shift proposes to exchange it for a colleague's.
enum ProposeSwapCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try NewTradeCommand.run(args, caller, context, store, also: ["with_shift_id", "with_date"], to: "propose a swap", as: "swapped") { new, change in
            let session = change.session
            let otherID = try args.id("with_shift_id", of: "a colleague's shift in the same team")
            let otherDate = try args.date("with_date")
            let (otherShift, _) = try ShiftAccess.member(session, shiftID: otherID, caller: new.access.caller, field: args.field("with_shift_id"))
            guard otherShift.teamID == new.team.id else {
                throw TallyError(.failedPrecondition, "shift \(otherID) is another team's; swaps are within one team", field: args.field("with_shift_id"))
            }
            let mine = new.occurrence
            let theirs = try MarketOccurrence.upcoming(
                session, shift: otherShift, team: new.team, date: otherDate, now: change.now, to: "swapped", field: args.field("with_date"))
            try new.subject.mustBe(mine.assignee, "the one who works \(mine.label)", to: "swap it", people: new.people)
            guard let colleague = theirs.assignee, colleague != new.subject.userID else {
                let why = theirs.assignee == nil ? "is open: volunteer for it instead" : "is yours already"
                throw TallyError(.failedPrecondition, "\(theirs.label) \(why)", field: args.field("with_shift_id"))
            }
            return try TradeTransitions.create(
                .swap, team: new.team, occurrence: mine, other: theirs, from: new.subject.userID, to: colleague, note: new.note,
                by: new.caller, &change, people: new.people)
        }
    }
}

/// What the commands that start a trade share: the caller, the occurrence (`shift_id` and
/// `date`, a shift of one of their teams that has not started), whom they act for, a `note`, and
/// the new trade as the result.
enum NewTradeCommand {
    struct Request {
        let occurrence: Occurrence
        let access: TeamAccess
        /// Who the trade is for: the caller, or (a manager acting) `for_user_id`.
        let subject: Member
        let people: PeopleDirectory
        let note: String?

        var team: Team { access.team }
        var caller: String { access.caller.userID }
    }

    static func run(
        _ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore, also keys: Set<String> = [], to what: String,
        as pastTense: String, _ body: (Request, inout Change) throws -> Trade
    ) throws -> StoredResult {
        try args.allowOnly(keys.union(["shift_id", "date", "note", "for_user_id"]))
        let shiftID = try args.id("shift_id", of: "a shift of one of your teams")
        let date = try args.date("date")
        let note = try args.optionalText("note", longest: Trade.noteLength, what: "a word for the people it concerns")
        return try store.change(context, args, owner: caller.userID) { change in
            let session = change.session
            let (shift, access) = try ShiftAccess.member(session, shiftID: shiftID, caller: caller)
            let request = Request(
                occurrence: try MarketOccurrence.upcoming(session, shift: shift, team: access.team, date: date, now: change.now, to: pastTense),
                access: access, subject: try access.subject(args, session, to: what),
                people: try Member.names(session, teamIDs: [access.team.id]), note: note)
            let trade = try body(request, &change)
            return try trade.result(session, team: access.team, people: request.people)
        }
    }
}

/// The occurrence a new trade is about, which must not have started.
enum MarketOccurrence {
    static func upcoming(
        _ session: any SQLSession, shift: Shift, team: Team, date: LocalDate, now: Int64, to what: String, field: String = "args.date"
    ) throws -> Occurrence {
        let occurrence = try ScheduleReader.occurrence(session, shift: shift, team: team, date: date, field: field)
        guard occurrence.slot.startsAt > now else {
            throw TallyError(
                .failedPrecondition,
                "\(occurrence.label) started at \(team.timeZone.rfc3339(occurrence.slot.startsAt)); only shifts that have not started can be \(what)",
                field: field)
        }
        return occurrence
    }
}
