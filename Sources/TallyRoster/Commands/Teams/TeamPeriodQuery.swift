import TallyProtocol
import TallyStorage

/// A read of one of the caller's teams over a span of its calendar (`team_id`, and `from` and
/// `to`, both optional): what `roster.market` and `roster.leaderboard` start from.
struct TeamPeriodQuery {
    let team: Team
    /// The days asked for, or the command's defaults around today in the team's time zone.
    let dates: ClosedRange<LocalDate>
    let people: PeopleDirectory
    /// When the read began, in milliseconds since 1970.
    let now: Int64

    /// Checks the args, then runs `body` in one read of `store` once the caller is known to be a
    /// member of the team; `defaults` gives the span from the team's today when none is asked for.
    static func read<Result>(
        _ args: Arguments, _ caller: Caller, _ store: RosterStore, longest: Int,
        defaults: (LocalDate) -> ClosedRange<LocalDate>,
        _ body: (any SQLSession, TeamPeriodQuery) throws -> Result
    ) throws -> Result {
        try args.allowOnly(["team_id", "from", "to"])
        let teamID = try args.id("team_id", of: "one of your teams")
        let now = Timestamp.now()
        return try store.read { session in
            let team = try TeamAccess.member(session, teamID: teamID, caller: caller).team
            let dates = try args.optionalDateRange(longest: longest, defaults: defaults(team.timeZone.date(at: now)))
            let query = TeamPeriodQuery(team: team, dates: dates, people: try Member.names(session, teamIDs: [team.id]), now: now)
            return try body(session, query)
        }
    }
}
