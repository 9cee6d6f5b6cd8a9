import TallyProtocol
import TallyStorage

/// `roster.schedule`: the concrete shifts of a date range, the caller's own (every team, or one)
/// or a whole team's.
enum ScheduleCommand {
    /// A quarter at a time.
    static let longestRange = 92

    enum View: String {
        /// Shifts the caller works, was scheduled for (and gave away), or has a trade open on.
        case mine
        /// Every shift of one team.
        case team
    }

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> ScheduleResult {
        try args.allowOnly(["view", "team_id", "from", "to"])
        let viewText = try args.optionalString("view") ?? View.mine.rawValue
        guard let view = View(rawValue: viewText) else {
            throw TallyError.invalidArgument("view must be \"mine\" or \"team\"", field: args.field("view"))
        }
        let teamID = try args.optionalID("team_id", of: "one of your teams")
        let dates = try args.dateRange(longest: longestRange)
        return try store.read { session in
            let teams: [Team]
            switch (view, teamID) {
            case (.team, nil):
                throw TallyError.invalidArgument("team_id is required for the team view", field: args.field("team_id"))
            case (_, let teamID?):
                teams = [try TeamAccess.member(session, teamID: teamID, caller: caller).team]
            case (.mine, nil):
                teams = try Team.all(session, ids: try Member.teamIDs(session, userID: caller.userID))
            }
            var occurrences = try ScheduleReader.occurrences(session, teams: teams, dates: dates)
            if view == .mine {
                occurrences = occurrences.filter { occurrence in
                    occurrence.assignee == caller.userID || occurrence.shift.assignee == caller.userID
                        || occurrence.openTrade.map { [$0.fromUserID, $0.toUserID].contains(caller.userID) } ?? false
                }
            }
            let people = try Member.names(session, teamIDs: teams.map(\.id))
            return ScheduleResult(
                view: view.rawValue, from: dates.lowerBound.description, to: dates.upperBound.description,
                occurrences: occurrences.map { $0.result(people) })
        }
    }
}

struct ScheduleResult: Encodable, Sendable {
    let view: String
    let from: String
    let to: String
    /// In order of start.
    let occurrences: [OccurrenceResult]
}
